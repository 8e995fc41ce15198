/**
 * The model's tokenizer (`tokenizer.json`, run by @huggingface/tokenizers) and chat template
 * (`tokenizer_config.json` chat_template, rendered by @huggingface/jinja the way transformers'
 * apply_chat_template does: add_generation_prompt, the special-token strings as variables, and
 * the rendered text tokenized without adding special tokens again).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Template } from '@huggingface/jinja';
import { Tokenizer } from '@huggingface/tokenizers';
import { CONFIG_FILE, MAX_CONFIG_BYTES, ModelConfig, readJsonObject } from '../checkpoint/config';
import { InputError, MAX_TEXT_FILE_BYTES, MissingChatTemplateError, readRegularBytes, utf8TextOf } from '../../common';
import { renderChatTemplate } from './chatTemplateLimits';
import { ChatMessage, type PromptSource, type TemplateKwargs } from '../types';
import { templateNames, unreadTemplateKwargs } from './templateVariables';
import { bytesPerTokenBound, tokensAtLeast } from './tokenCountBound';
import { nestedRepetition, tokenizerPatterns } from './patternRepetition';
import { refuseCollidingAddedTokens, refuseOversizedTokenizerFile, refuseOversizedVocabulary } from './vocabularyChecks';

export interface ModelTokenizer {
  /** The prompt text the chat template renders (add_generation_prompt = true). */
  renderChat(messages: readonly ChatMessage[], templateKwargs?: TemplateKwargs, templateDate?: string): string;
  /** renderChat, then tokenized without adding special tokens again (the template already has them). */
  encodeChat(messages: readonly ChatMessage[], templateKwargs?: TemplateKwargs, templateDate?: string): number[];
  /** Tokenizes text; special tokens (e.g. bos) are added as the tokenizer's post-processor says. */
  encodeRaw(text: string): number[];
  /** Tokenizes a piece of generated text: no special tokens added (a server's output without ids). */
  encodeText(text: string): number[];
  /** The fewest tokens the prompt can encode to, from its length alone (0 when unknown); see tokenCountBound.ts. */
  tokensAtLeast(prompt: PromptSource): number;
  /** Text of the ids with special tokens skipped; ids the tokenizer does not know decode to nothing. */
  decode(ids: readonly number[]): string;
  readonly hasChatTemplate: boolean;
  /** The chat template calls strftime_now: its prompts depend on the date they are rendered with. */
  readonly templateReadsDate: boolean;
  /** eos ids of the config (config.json + generation_config.json) plus the tokenizer's eos_token. */
  readonly eosTokenIds: number[];
  /** Largest token id the tokenizer can produce, plus one. */
  readonly vocabSize: number;
}

export const TOKENIZER_FILE = 'tokenizer.json';
/** The largest tokenizer.json read (the largest real ones, 250k-token vocabularies, are about 35 MB). */
const MAX_TOKENIZER_BYTES = MAX_TEXT_FILE_BYTES;
export const TOKENIZER_CONFIG_FILE = 'tokenizer_config.json';
/** Newer transformers save the template beside tokenizer_config.json instead of inside it. */
export const CHAT_TEMPLATE_FILE = 'chat_template.jinja';

const SPECIAL_TOKEN_FIELDS = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'] as const;

type Json = Record<string, unknown>;

/** A special token written as a string or as an AddedToken-like object {content, ...}. */
function tokenContent(file: string, field: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && !Array.isArray(value) && typeof (value as Json).content === 'string') {
    return (value as Json).content as string;
  }
  throw new InputError(`${file}: field ${field} is ${JSON.stringify(value)}; expected a string or an object with "content"`);
}

/** A pattern that repeats a repeating group can match for minutes on a few dozen characters (patternRepetition.ts): refused before it runs. */
function refuseNestedRepetition(tokenizerFile: string, tokenizerJson: Json): void {
  for (const { field, pattern } of tokenizerPatterns(tokenizerJson)) {
    const nested = nestedRepetition(pattern);
    if (nested === null) continue;
    throw new InputError(
      `${tokenizerFile}: field ${field} ${JSON.stringify(pattern.length > 200 ? pattern.slice(0, 200) + '…' : pattern)} repeats a group that itself repeats (${JSON.stringify(nested)}), ` +
        'which can take exponential time on a few dozen characters; a tokenizer pattern may not repeat a group that itself repeats a varying number of times (star height 1): ' +
        'rewrite the pattern without the nested repetition, or name a folder with another tokenizer with --tokenizer-from DIR',
    );
  }
}

/** The template text (a string, or the one named "default" among named templates) and where it comes from. */
function chatTemplateSource(dir: string, configFile: string, config: Json): { text: string; where: string } | undefined {
  const value = config.chat_template;
  if (typeof value === 'string') return { text: value, where: `${configFile}: chat_template` };
  if (Array.isArray(value)) {
    const named = value.filter(
      (t): t is { name: string; template: string } =>
        typeof t === 'object' && t !== null && typeof (t as Json).name === 'string' && typeof (t as Json).template === 'string',
    );
    if (named.length !== value.length) {
      throw new InputError(`${configFile}: field chat_template is a list whose items are not all {"name", "template"} objects`);
    }
    const chosen = named.find((t) => t.name === 'default');
    if (!chosen) {
      throw new InputError(
        `${configFile}: field chat_template lists templates ${named.map((t) => JSON.stringify(t.name)).join(', ')}; expected one named "default"`,
      );
    }
    return { text: chosen.template, where: `${configFile}: chat_template "default"` };
  }
  if (value !== undefined && value !== null) {
    throw new InputError(`${configFile}: field chat_template is ${typeof value}; expected a string or a list of {"name", "template"}`);
  }
  const separate = path.join(dir, CHAT_TEMPLATE_FILE);
  if (fs.existsSync(separate)) return { text: utf8TextOf(separate, readRegularBytes(separate, MAX_CONFIG_BYTES)), where: `${separate}: the chat template` };
  return undefined;
}

/**
 * Loads `tokenizer.json` (required), `tokenizer_config.json` (optional) and the chat template from
 * `dir`: the model folder `modelDir`, or the folder given with --tokenizer-from (tokenizerFolder.ts).
 */
export function loadModelTokenizer(modelDir: string, config: ModelConfig, dir: string = modelDir): ModelTokenizer {
  const tokenizerFile = path.join(dir, TOKENIZER_FILE);
  const configFile = path.join(dir, TOKENIZER_CONFIG_FILE);
  if (dir === modelDir && !fs.existsSync(tokenizerFile)) {
    // A Trainer checkpoint often has no tokenizer files; which folder holds them is the user's to say.
    throw new InputError(`${tokenizerFile}: not found; expected a Hugging Face tokenizers tokenizer.json (a checkpoint saved without its tokenizer: name the folder that holds it with --tokenizer-from DIR)`);
  }
  refuseOversizedTokenizerFile(tokenizerFile, config.vocabSize, path.join(modelDir, CONFIG_FILE));
  const tokenizerJson = readJsonObject(tokenizerFile, false, 'a Hugging Face tokenizers tokenizer.json', MAX_TOKENIZER_BYTES) as Json;
  if (typeof tokenizerJson.model !== 'object' || tokenizerJson.model === null || Array.isArray(tokenizerJson.model)) {
    throw new InputError(`${tokenizerFile}: field model ${tokenizerJson.model === undefined ? 'missing' : 'is not an object'}; expected the tokenizer model ({"type": "BPE", ...})`);
  }
  refuseNestedRepetition(tokenizerFile, tokenizerJson);
  refuseOversizedVocabulary(tokenizerFile, tokenizerJson, config.vocabSize, path.join(modelDir, CONFIG_FILE));
  refuseCollidingAddedTokens(tokenizerFile, tokenizerJson);
  const tokenizerConfig = readJsonObject(configFile, true, 'a JSON object (chat_template, special tokens)') ?? {};

  // Special tokens as plain strings, both for the tokenizer library and for the template.
  const specialTokens: Record<string, string> = {};
  for (const field of SPECIAL_TOKEN_FIELDS) {
    const content = tokenContent(configFile, field, tokenizerConfig[field]);
    if (content !== undefined) specialTokens[field] = content;
  }
  const extra = tokenizerConfig.additional_special_tokens;
  let additionalSpecialTokens: string[] = [];
  if (extra !== undefined && extra !== null) {
    if (!Array.isArray(extra)) throw new InputError(`${configFile}: field additional_special_tokens is not a list`);
    additionalSpecialTokens = extra.map((t, i) => tokenContent(configFile, `additional_special_tokens[${i}]`, t) ?? '');
  }

  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(
      {
        // The library requires these keys to exist (null is allowed); older files may omit some.
        normalizer: null,
        pre_tokenizer: null,
        post_processor: null,
        decoder: null,
        added_tokens: [],
        ...tokenizerJson,
      },
      {
        ...tokenizerConfig,
        ...specialTokens,
        additional_special_tokens: additionalSpecialTokens,
        chat_template: undefined,
        // transformers' current default is no clean-up; a config may still ask for it.
        clean_up_tokenization_spaces: tokenizerConfig.clean_up_tokenization_spaces === true,
      },
    );
  } catch (e) {
    throw new InputError(`${tokenizerFile}: cannot build the tokenizer (${(e as Error).message}); expected a Hugging Face tokenizers file`);
  }

  const vocab = tokenizer.get_vocab(true);
  let vocabSize = 0;
  for (const id of vocab.values()) if (id + 1 > vocabSize) vocabSize = id + 1;
  if (vocabSize > config.vocabSize) {
    throw new InputError(
      `${tokenizerFile}: the tokenizer has token ids up to ${vocabSize - 1}, but ${path.join(modelDir, CONFIG_FILE)} has vocab_size ${config.vocabSize} (the embedding's rows); expected a tokenizer that matches the model`,
    );
  }

  const addedTokens = Array.isArray(tokenizerJson.added_tokens)
    ? tokenizerJson.added_tokens.flatMap((t: unknown) => (typeof t === 'object' && t !== null && typeof (t as Json).content === 'string' ? [(t as Json).content as string] : []))
    : [];
  const bytesPerToken = bytesPerTokenBound(tokenizerJson, vocab.keys(), addedTokens);

  const eosTokenIds = [...config.eosTokenIds];
  if (specialTokens.eos_token !== undefined) {
    const id = tokenizer.token_to_id(specialTokens.eos_token);
    if (id !== undefined && !eosTokenIds.includes(id)) eosTokenIds.push(id);
  }

  const source = chatTemplateSource(dir, configFile, tokenizerConfig);
  let template: Template | undefined;
  if (source !== undefined) {
    try {
      template = new Template(source.text);
    } catch (e) {
      throw new InputError(`${source.where} is not a valid Jinja template (${(e as Error).message})`);
    }
  }
  const templateVariables: Record<string, unknown> = { ...specialTokens, additional_special_tokens: additionalSpecialTokens };
  const renderChat = (messages: readonly ChatMessage[], templateKwargs: TemplateKwargs = {}, templateDate?: string): string => {
    if (!template) {
      throw new MissingChatTemplateError(configFile);
    }
    // A variable the template never reads would change nothing: refused by name rather than recorded as if it had.
    const unread = unreadTemplateKwargs(template, source!.text, templateKwargs);
    if (unread.length > 0) {
      throw new InputError(`--chat-template-kwargs: the chat template (${source!.where}) reads no variable ${unread.map((k) => JSON.stringify(k)).join(', ')}, so it would change nothing`);
    }
    const chars = messages.reduce((n, m) => n + m.content.length + m.role.length, 0);
    return renderChatTemplate(
      template,
      // As transformers' apply_chat_template: the extra variables beside the special tokens; messages and the generation prompt are its own.
      { ...templateVariables, ...templateKwargs, messages: messages.map((m) => ({ role: m.role, content: m.content })), add_generation_prompt: true },
      source!.where,
      chars,
      templateDate,
    );
  };

  return {
    hasChatTemplate: template !== undefined,
    templateReadsDate: template !== undefined && templateNames(template, source!.text, 'strftime_now'),
    eosTokenIds,
    vocabSize,
    renderChat,
    encodeChat(messages: readonly ChatMessage[], templateKwargs?: TemplateKwargs, templateDate?: string): number[] {
      return tokenizer.encode(renderChat(messages, templateKwargs, templateDate), { add_special_tokens: false }).ids;
    },
    encodeRaw(text: string): number[] {
      return tokenizer.encode(text).ids;
    },
    tokensAtLeast(prompt: PromptSource): number {
      return tokensAtLeast('chat' in prompt ? renderChat(prompt.chat, prompt.templateKwargs, prompt.templateDate) : prompt.raw, bytesPerToken);
    },
    encodeText(text: string): number[] {
      return tokenizer.encode(text, { add_special_tokens: false }).ids;
    },
    decode(ids: readonly number[]): string {
      const known = ids.filter((id) => tokenizer.id_to_token(id) !== undefined);
      if (known.length === 0) return '';
      return tokenizer.decode(known, { skip_special_tokens: true });
    },
  };
}
