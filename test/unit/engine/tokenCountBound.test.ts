import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import fc from 'fast-check';
import { readModelConfig } from '../../../src/engine/checkpoint/config';
import { type ModelTokenizer, loadModelTokenizer } from '../../../src/engine/text/tokenizer';
import { bytesPerTokenBound, tokensAtLeast } from '../../../src/engine/text/tokenCountBound';

// Compiled tests run from out/test/unit/engine; the fixtures stay in the source tree.
const REPO = path.resolve(__dirname, '../../../..');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-token-bound-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

const bpe = (extra: Record<string, unknown> = {}) => ({ type: 'BPE', unk_token: null, fuse_unk: false, byte_fallback: false, ...extra });
const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };

describe('the fewest tokens a text can encode to', () => {
  it('follows the longest token, times what the normalizer can shrink; no bound where text can vanish', () => {
    const vocab = ['a', 'ĠĠĠĠ', 'abcdefgh'];
    const bound = (json: Record<string, unknown>) => bytesPerTokenBound({ normalizer: null, pre_tokenizer: byteLevel, model: bpe(), ...json }, vocab, ['<|im_start|>']);
    assert.equal(bound({}), 12, 'the added token <|im_start|> is the longest (12 bytes)');
    assert.equal(bytesPerTokenBound({ normalizer: null, pre_tokenizer: byteLevel, model: bpe() }, vocab, []), 8, 'byte-level: one character per byte');
    assert.equal(bytesPerTokenBound({ normalizer: null, pre_tokenizer: null, model: bpe() }, ['ĠĠĠĠ'], []), 8, 'otherwise measured in UTF-8 bytes');
    assert.equal(bytesPerTokenBound({ normalizer: null, pre_tokenizer: null, model: bpe() }, ['ab'], []), 4, 'one unknown character can be 4 bytes');
    // The tokenizers library lists an undefined key for a vocabulary with gaps in its ids.
    assert.equal(bytesPerTokenBound({ normalizer: null, pre_tokenizer: byteLevel, model: bpe() }, [...vocab, undefined], []), 8, 'an undefined vocabulary key spells nothing');
    assert.equal(bound({ normalizer: { type: 'NFC' } }), 48);
    assert.equal(bound({ normalizer: { type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: '▁' }, { type: 'Replace', pattern: { String: ' ' }, content: '▁' }] } }), 12);
    assert.equal(bound({ normalizer: { type: 'Sequence', normalizers: [{ type: 'NFKC' }, { type: 'Lowercase' }] } }), 192);
    for (const normalizer of [{ type: 'Strip' }, { type: 'StripAccents' }, { type: 'BertNormalizer' }, { type: 'Precompiled' }, { type: 'Replace', pattern: { String: 'ab' }, content: '' }, { type: 'Replace', pattern: { Regex: '\\s+' }, content: ' ' }]) {
      assert.equal(bound({ normalizer }), undefined, JSON.stringify(normalizer));
    }
    for (const pre of [{ type: 'Whitespace' }, { type: 'BertPreTokenizer' }, { type: 'Split', pattern: { String: ' ' }, behavior: 'Removed' }, { type: 'Sequence', pretokenizers: [byteLevel, { type: 'WhitespaceSplit' }] }]) {
      assert.equal(bound({ pre_tokenizer: pre }), undefined, JSON.stringify(pre));
    }
    assert.equal(bound({ pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Split', pattern: { Regex: '\\d' }, behavior: 'Isolated' }, byteLevel] } }), 12);
    assert.equal(bound({ model: { type: 'WordPiece' } }), undefined);
    assert.equal(bound({ model: { type: 'Unigram' } }), undefined);
    assert.equal(bound({ model: bpe({ unk_token: '<unk>', fuse_unk: true }) }), undefined, 'a fused unknown token swallows a run');
    assert.equal(bound({ model: bpe({ unk_token: '<unk>', fuse_unk: true, byte_fallback: true }) }), 12, 'unless bytes fall back');
    assert.equal(tokensAtLeast('x'.repeat(100), 12), 9);
    assert.equal(tokensAtLeast('é'.repeat(6), 12), 1);
    assert.equal(tokensAtLeast('anything', undefined), 0);
  });

  describe('never more than the real tokenizers give', () => {
    const tokenizers = new Map<string, ModelTokenizer>();
    before(() => {
      const qwen3 = path.join(root, 'qwen3');
      fs.mkdirSync(qwen3);
      const src = path.join(REPO, 'test/fixtures/tokenizers/qwen3');
      fs.writeFileSync(path.join(qwen3, 'tokenizer.json'), zlib.gunzipSync(fs.readFileSync(path.join(src, 'tokenizer.json.gz'))));
      fs.copyFileSync(path.join(src, 'tokenizer_config.json'), path.join(qwen3, 'tokenizer_config.json'));
      fs.writeFileSync(path.join(qwen3, 'config.json'), JSON.stringify({ architectures: ['Qwen3ForCausalLM'], hidden_size: 64, head_dim: 16, num_attention_heads: 4, num_key_value_heads: 2, intermediate_size: 128, num_hidden_layers: 2, vocab_size: 151936, eos_token_id: 151645 }));
      tokenizers.set('qwen3 (NFC, byte-level)', loadModelTokenizer(qwen3, readModelConfig(qwen3)));
      const demo = path.join(REPO, 'media/demo/base');
      tokenizers.set('demo (Replace, Split, unknown token)', loadModelTokenizer(demo, readModelConfig(demo)));
    });

    // Text rich in what shrinks under normalization: Hangul jamo, combining marks, compatibility forms, runs of spaces.
    const tricky = fc.constantFrom('\u1100\u1161\u11a8', 'e\u0301', '\u03b1\u0313\u0301\u0345', '\ud835\udc00', '\ufb00', '\u212a', ' ', '    ', '\n', '~', '####', '12345678901234567890', '-----------------------------', 'the answer is', '<|im_start|>', '\u00e9');
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.array(fc.oneof(tricky, fc.string({ maxLength: 6 })), { maxLength: 60 }).map((parts) => parts.join('')));

    it('raw text and chat prompts', () => {
      for (const [name, tokenizer] of tokenizers) {
        fc.assert(
          fc.property(text, (t) => {
            const raw = tokenizer.encodeRaw(t).length;
            assert.ok(tokenizer.tokensAtLeast({ raw: t }) <= raw, `${name}: raw ${JSON.stringify(t)}: ${tokenizer.tokensAtLeast({ raw: t })} > ${raw}`);
            if (tokenizer.hasChatTemplate) {
              const chat = [{ role: 'user' as const, content: t }];
              assert.ok(tokenizer.tokensAtLeast({ chat }) <= tokenizer.encodeChat(chat).length, `${name}: chat ${JSON.stringify(t)}`);
            }
          }),
          { numRuns: 300, seed: 7 },
        );
        const long = 'The answer is 42. '.repeat(2000);
        const bound = tokenizer.tokensAtLeast({ raw: long });
        assert.ok(bound > 0 && bound <= tokenizer.encodeRaw(long).length, `${name}: a long text gets a bound (${bound})`);
      }
    });

    it('a 50 MB question is measured in well under a second of tokenizing (none)', () => {
      const tokenizer = tokenizers.get('demo (Replace, Split, unknown token)') as ModelTokenizer;
      const question = 'What is 1 plus 1? '.repeat(Math.ceil((50 << 20) / 18));
      const started = performance.now();
      const bound = tokenizer.tokensAtLeast({ chat: [{ role: 'user', content: question }] });
      const ms = performance.now() - started;
      assert.ok(bound > 512, `bound ${bound} is over the demo model's context`);
      assert.ok(ms < 10_000, `took ${ms} ms`);
    });
  });
});
