import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { Template } from '@huggingface/jinja';
import { SMALL_SPECS, writeRandomModel } from '../../support/modelFolder';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ref-tok-'));

for (const [key, spec] of Object.entries(SMALL_SPECS)) {
  test(`${key}: tokenizer.json loads in @huggingface/tokenizers with exactly vocab_size tokens`, () => {
    const dir = path.join(root, key);
    const written = writeRandomModel(dir, spec);
    const tj = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8'));
    const tc = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer_config.json'), 'utf8'));
    const tok = new Tokenizer(tj, tc);
    const vocab: Map<string, number> = tok.get_vocab(true);
    assert.equal(vocab.size, spec.vocabSize);
    const ids = new Set(vocab.values());
    assert.equal(ids.size, spec.vocabSize);
    assert.equal(Math.max(...ids), spec.vocabSize - 1);

    const text = 'Janet has 3 apples. How many? #### 8 Answer: B, café ✓';
    const enc: { ids: number[] } = tok.encode(text, { add_special_tokens: false });
    assert.ok(enc.ids.length < Buffer.byteLength(text), 'merges are used');
    assert.ok(enc.ids.every((i) => i >= 0 && i < spec.vocabSize));
    assert.equal(tok.decode(enc.ids), text);
    for (const [content, id] of Object.entries(written.specialIds)) {
      assert.deepEqual(tok.encode(content, { add_special_tokens: false }).ids, [id], content);
    }
    const withSpecial = tok.encode('hi').ids;
    if (written.bosId !== null) assert.equal(withSpecial[0], written.bosId);
    else assert.deepEqual(withSpecial, tok.encode('hi', { add_special_tokens: false }).ids);

    const gen = JSON.parse(fs.readFileSync(path.join(dir, 'generation_config.json'), 'utf8'));
    const eos = Array.isArray(gen.eos_token_id) ? gen.eos_token_id : [gen.eos_token_id];
    assert.deepEqual(eos, written.eosIds);
    assert.equal(tok.token_to_id(tc.eos_token), written.eosIds[0]);

    const rendered = new Template(tc.chat_template).render({
      messages: [{ role: 'user', content: 'What is 2+2?' }],
      add_generation_prompt: true,
      bos_token: tc.bos_token ?? '',
      eos_token: tc.eos_token,
    });
    assert.match(rendered, /What is 2\+2\?/);
    const chatIds: number[] = tok.encode(rendered, { add_special_tokens: false }).ids;
    const specials = new Set(Object.values(written.specialIds));
    assert.ok(chatIds.filter((i) => specials.has(i)).length >= 2, rendered);
  });
}
