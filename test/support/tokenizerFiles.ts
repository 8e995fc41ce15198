/**
 * Builds a small byte-level BPE `tokenizer.json` and a matching `tokenizer_config.json` (chat
 * template, special tokens) for test model folders. Layout of ids: 0..255 the 256 byte tokens
 * (id = byte value), then merges learned from a fixed English corpus (and, for large vocabularies,
 * systematic filler merges), then the special tokens at the end. Total vocabulary = vocabSize exactly.
 */

export type TokenizerFamily = 'llama3' | 'mistral' | 'qwen';

export interface TokenizerFiles {
  tokenizerJson: Record<string, unknown>;
  tokenizerConfig: Record<string, unknown>;
  /** Special token ids by content. */
  specialIds: Record<string, number>;
  bosId: number | null;
  /** eos ids for generation_config.json (first = the tokenizer's eos_token). */
  eosIds: number[];
  /** eos id for config.json. */
  configEosId: number;
}

const SPECIALS: Record<TokenizerFamily, string[]> = {
  llama3: ['<|begin_of_text|>', '<|end_of_text|>', '<|start_header_id|>', '<|end_header_id|>', '<|eot_id|>'],
  mistral: ['<unk>', '<s>', '</s>', '[INST]', '[/INST]'],
  qwen: ['<|endoftext|>', '<|im_start|>', '<|im_end|>'],
};

const CHAT_TEMPLATES: Record<TokenizerFamily, string> = {
  llama3:
    "{{ bos_token }}{% for message in messages %}{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}",
  mistral:
    "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token }}{% endif %}{% endfor %}",
  qwen:
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}",
};

const CORPUS = [
  'The answer is 42. Janet has 3 apples and buys 5 more, so she has 8 apples in total.',
  'Question: What is the capital of France? Answer: A. Paris is the capital of France.',
  'Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May.',
  'How many clips did Natalia sell altogether in April and May? #### 72',
  'Let us think step by step. First we add the numbers, then we multiply the result by two.',
  'Which of the following is a renewable source of energy? A. coal B. wind C. oil D. gas',
  'the of and to in is that for it with as was on be at by this had not are but from or have',
  'The model answers the question with a worked solution ending in the final number.',
].join('\n');

/** GPT-2 byte -> printable unicode character mapping. */
export function byteToUnicode(): string[] {
  const keep: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) keep.push(b);
  for (let b = 0xa1; b <= 0xac; b++) keep.push(b);
  for (let b = 0xae; b <= 0xff; b++) keep.push(b);
  const map: string[] = new Array(256);
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (keep.includes(b)) map[b] = String.fromCharCode(b);
    else map[b] = String.fromCharCode(256 + n++);
  }
  return map;
}

function learnMerges(count: number, byteChars: string[]): [string, string][] {
  const pieces = CORPUS.match(/ ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu) ?? [];
  const words: string[][] = pieces.map((p) => [...Buffer.from(p, 'utf8')].map((b) => byteChars[b]));
  const vocab = new Set<string>(byteChars);
  const merges: [string, string][] = [];
  while (merges.length < count) {
    const counts = new Map<string, number>();
    for (const w of words) {
      for (let i = 0; i + 1 < w.length; i++) {
        const key = JSON.stringify([w[i], w[i + 1]]);
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
    let best: string | undefined;
    let bestCount = 1; // only pairs seen at least twice
    for (const [k, c] of [...counts.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      if (c > bestCount) {
        best = k;
        bestCount = c;
      }
    }
    if (best === undefined) break;
    const [a, b] = JSON.parse(best) as [string, string];
    if (vocab.has(a + b)) {
      // cannot happen for the first merge of a string, but keep the vocabulary unique
      for (const w of words) for (let i = 0; i + 1 < w.length; i++) if (w[i] === a && w[i + 1] === b) w.splice(i, 2, a + b);
      continue;
    }
    merges.push([a, b]);
    vocab.add(a + b);
    for (const w of words) {
      for (let i = 0; i + 1 < w.length; i++) {
        if (w[i] === a && w[i + 1] === b) w.splice(i, 2, a + b);
      }
    }
  }
  // Filler merges for vocabularies larger than the corpus supports: pairs of printable ASCII tokens.
  const printable = byteChars.slice(0x21, 0x7f);
  const bases = [...printable];
  for (let round = 0; merges.length < count; round++) {
    const base = bases[round];
    if (base === undefined) throw new Error(`tokenizerFiles: cannot build ${count} merges`);
    for (const c of printable) {
      if (merges.length >= count) break;
      if (!vocab.has(base + c)) {
        merges.push([base, c]);
        vocab.add(base + c);
        bases.push(base + c);
      }
    }
  }
  return merges;
}

export function buildTokenizerFiles(family: TokenizerFamily, vocabSize: number): TokenizerFiles {
  const specials = SPECIALS[family];
  const numMerges = vocabSize - 256 - specials.length;
  if (numMerges < 0) throw new Error(`tokenizerFiles: vocabSize must be at least ${256 + specials.length}`);
  const byteChars = byteToUnicode();
  const merges = learnMerges(numMerges, byteChars);
  const vocab: Record<string, number> = {};
  byteChars.forEach((c, i) => (vocab[c] = i));
  merges.forEach(([a, b], i) => (vocab[a + b] = 256 + i));
  const specialIds: Record<string, number> = {};
  specials.forEach((s, i) => (specialIds[s] = 256 + numMerges + i));

  const addedTokens = specials.map((content) => ({
    id: specialIds[content],
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  }));

  const bos = family === 'llama3' ? '<|begin_of_text|>' : family === 'mistral' ? '<s>' : null;
  const eos = family === 'llama3' ? '<|eot_id|>' : family === 'mistral' ? '</s>' : '<|im_end|>';
  const postProcessor =
    bos === null
      ? { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false }
      : {
          type: 'TemplateProcessing',
          single: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
          pair: [
            { SpecialToken: { id: bos, type_id: 0 } },
            { Sequence: { id: 'A', type_id: 0 } },
            { SpecialToken: { id: bos, type_id: 1 } },
            { Sequence: { id: 'B', type_id: 1 } },
          ],
          special_tokens: { [bos]: { id: bos, ids: [specialIds[bos]], tokens: [bos] } },
        };

  const tokenizerJson = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: addedTokens,
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: postProcessor,
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges,
    },
  };

  const addedTokensDecoder: Record<string, unknown> = {};
  for (const t of addedTokens) {
    addedTokensDecoder[String(t.id)] = {
      content: t.content,
      lstrip: false,
      normalized: false,
      rstrip: false,
      single_word: false,
      special: true,
    };
  }
  const tokenizerConfig: Record<string, unknown> = {
    add_bos_token: bos !== null,
    add_eos_token: false,
    added_tokens_decoder: addedTokensDecoder,
    bos_token: bos,
    eos_token: eos,
    pad_token: family === 'qwen' ? '<|endoftext|>' : null,
    chat_template: CHAT_TEMPLATES[family],
    clean_up_tokenization_spaces: false,
    model_max_length: 4096,
    tokenizer_class: family === 'qwen' ? 'Qwen2Tokenizer' : 'PreTrainedTokenizerFast',
  };

  const eosIds =
    family === 'llama3'
      ? [specialIds['<|eot_id|>'], specialIds['<|end_of_text|>']]
      : family === 'mistral'
        ? [specialIds['</s>']]
        : [specialIds['<|im_end|>'], specialIds['<|endoftext|>']];
  const configEosId =
    family === 'llama3' ? specialIds['<|end_of_text|>'] : family === 'mistral' ? specialIds['</s>'] : specialIds['<|endoftext|>'];
  return {
    tokenizerJson,
    tokenizerConfig,
    specialIds,
    bosId: bos === null ? null : specialIds[bos],
    eosIds,
    configEosId,
  };
}
