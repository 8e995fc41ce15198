/**
 * Inspect AI logs read into a HarnessLog: a `.eval` file (a zip of `header.json` and one
 * `samples/<id>_epoch_<n>.json` per sample and epoch, or the chunked `samples/<id>_epoch_<n>/sample.json`)
 * or a `.json` log (`eval` and `samples` in one object). A sample's `input`, `choices` and `target`
 * are its benchmark row; its epochs' outputs, in epoch order, are the deployment's (epoch 1) and the
 * sample probe's; each scorer's `answer` and C/I value are the harness's reading.
 */
import { unzipSync } from 'fflate';
import { InputError } from '../../common';
import { isObject } from '../../contract';
import type { HarnessLog, HarnessReading, LoggedQuestion } from './harnessLog';

type Json = Record<string, unknown>;

const SAMPLE_ENTRY = /^samples\/(.+)_epoch_(\d+)(?:\.json|\/sample\.json)$/;

/** Text of a message's content: a string, or the text parts of a content list; attachments resolved. */
function contentText(content: unknown, attachments: Json): string | null {
  const resolve = (s: string) => {
    const m = /^attachment:\/\/(\w+)$/.exec(s);
    return m && typeof attachments[m[1]] === 'string' ? (attachments[m[1]] as string) : s;
  };
  if (typeof content === 'string') return resolve(content);
  if (Array.isArray(content)) {
    const parts = content.filter((c): c is Json => isObject(c) && c.type === 'text' && typeof c.text === 'string').map((c) => resolve(c.text as string));
    return parts.length > 0 ? parts.join('') : null;
  }
  return null;
}

/** A chunked sample's attachments: each attachments/<start>.json a list of strings, item i referenced as attachment://<start + i>. */
function chunkedAttachments(entries: Record<string, Uint8Array>, prefix: string, json: (name: string) => unknown): Json {
  const out: Json = {};
  for (const name of Object.keys(entries)) {
    const m = name.startsWith(`${prefix}attachments/`) ? /^(\d+)\.json$/.exec(name.slice(prefix.length + 'attachments/'.length)) : null;
    if (!m) continue;
    const list = json(name);
    if (Array.isArray(list)) list.forEach((text, i) => (out[String(Number(m[1]) + i)] = text));
  }
  return out;
}

/** Inspect's score value as a 0/1 verdict: C / I (and 1 / 0, true / false); null for partial or other scales. */
function verdictOf(value: unknown): boolean | null {
  if (value === 'C' || value === 1 || value === true) return true;
  if (value === 'I' || value === 0 || value === false) return false;
  return null;
}

function readingsOf(sample: Json): Record<string, HarnessReading> {
  const scores = isObject(sample.scores) ? sample.scores : {};
  const out: Record<string, HarnessReading> = {};
  for (const [name, s] of Object.entries(scores)) {
    if (!isObject(s)) continue;
    const correct = verdictOf(s.value);
    const numeric = typeof s.value === 'number' && Number.isFinite(s.value) ? s.value : correct === null ? undefined : correct ? 1 : 0;
    out[name] = { extracted: typeof s.answer === 'string' ? s.answer : null, correct, scores: numeric === undefined ? {} : { value: numeric } };
  }
  return out;
}

/** Reads one Inspect log (.eval bytes or .json text) into a HarnessLog; throws InputError naming the file. */
export function readInspectLog(file: string, bytes: Uint8Array): HarnessLog {
  let header: Json;
  let samples: { sample: Json; where: string }[];
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) {
    let entries: Record<string, Uint8Array>;
    try {
      entries = unzipSync(bytes);
    } catch (e) {
      throw new InputError(`${file}: not a complete zip archive (${(e as Error).message}); an Inspect .eval log is a zip of header.json and samples/, and this one may be cut short`);
    }
    const json = (name: string): unknown => {
      try {
        return JSON.parse(new TextDecoder().decode(entries[name]));
      } catch (e) {
        throw new InputError(`${file}: ${name} is not valid JSON (${(e as Error).message})`);
      }
    };
    if (!entries['header.json']) throw new InputError(`${file}: a zip without header.json; expected an Inspect .eval log (header.json and samples/<id>_epoch_<n>.json)`);
    const h = json('header.json');
    if (!isObject(h) || !isObject(h.eval)) throw new InputError(`${file}: header.json has no "eval" object; expected an Inspect .eval log`);
    header = h;
    samples = Object.keys(entries)
      .filter((n) => SAMPLE_ENTRY.test(n))
      .map((n) => {
        const s = json(n);
        if (!isObject(s)) throw new InputError(`${file}: ${n} is not a sample object`);
        // The chunked layout keeps a sample's attachments as an indexed sequence in attachments/<start>.json.
        if (n.endsWith('/sample.json')) s.attachments = { ...(isObject(s.attachments) ? s.attachments : {}), ...chunkedAttachments(entries, n.slice(0, -'sample.json'.length), json) };
        return { sample: s, where: `${file}:${n}` };
      });
  } else {
    let v: unknown;
    try {
      v = JSON.parse(new TextDecoder().decode(bytes));
    } catch (e) {
      throw new InputError(`${file}: not valid JSON (${(e as Error).message}); expected an Inspect .json or .eval log`);
    }
    if (!isObject(v) || !isObject(v.eval) || !Array.isArray(v.samples)) throw new InputError(`${file}: not an Inspect log: expected an object with "eval" and "samples"`);
    header = v;
    samples = (v.samples as unknown[]).map((s, i) => {
      if (!isObject(s)) throw new InputError(`${file}: samples[${i}] is not an object`);
      return { sample: s, where: `${file}: samples[${i}]` };
    });
  }
  if (samples.length === 0) throw new InputError(`${file}: the log has no samples (logged with --no-log-samples, or the run did not finish any)`);
  const evalInfo = header.eval as Json;

  const byId = new Map<string, { epochs: { epoch: number; sample: Json; where: string }[] }>();
  for (const { sample, where } of samples) {
    if (typeof sample.id !== 'string' && typeof sample.id !== 'number') throw new InputError(`${where}: field "id" is ${JSON.stringify(sample.id)}; expected a sample id`);
    const epoch = Number.isInteger(sample.epoch) ? (sample.epoch as number) : 1;
    const entry = byId.get(String(sample.id)) ?? { epochs: [] };
    entry.epochs.push({ epoch, sample, where });
    byId.set(String(sample.id), entry);
  }
  // Questions in the order of the dataset's ids as the header lists them, else in first-seen order.
  const listed = isObject(evalInfo.dataset) && Array.isArray(evalInfo.dataset.sample_ids) ? (evalInfo.dataset.sample_ids as unknown[]).map(String) : [];
  const order = [...listed.filter((id) => byId.has(id)), ...[...byId.keys()].filter((id) => !listed.includes(id))];
  const questions: LoggedQuestion[] = order.map((id, i) => {
    const epochs = byId.get(id)!.epochs.sort((a, b) => a.epoch - b.epoch);
    const first = epochs[0];
    const s = first.sample;
    const attachments = isObject(s.attachments) ? s.attachments : {};
    const inputText = contentText(s.input, attachments) ?? (Array.isArray(s.input) ? contentText((s.input.filter((m): m is Json => isObject(m) && m.role === 'user').pop() ?? {}).content, attachments) : null);
    if (inputText === null) throw new InputError(`${first.where}: field "input" has no text; expected the question`);
    const target = Array.isArray(s.target) ? s.target[0] : s.target;
    const doc: Json = { id, question: inputText, ...(Array.isArray(s.choices) ? { choices: s.choices, answer: target } : { target }) };
    const user = Array.isArray(s.messages) ? s.messages.filter((m): m is Json => isObject(m) && m.role === 'user').pop() : undefined;
    const prompt = (user && contentText(user.content, attachments)) ?? inputText;
    const outputs = epochs.map(({ sample, where }) => {
      const out = isObject(sample.output) ? sample.output : {};
      const own = isObject(sample.attachments) ? sample.attachments : {};
      const choice = Array.isArray(out.choices) && isObject(out.choices[0]) && isObject(out.choices[0].message) ? contentText(out.choices[0].message.content, own) : null;
      const text = typeof out.completion === 'string' ? contentText(out.completion, own) : choice;
      if (text === null) throw new InputError(`${where}: no output text (output.completion or output.choices[0].message.content)`);
      return text;
    });
    return { key: id, position: i + 1, doc, where: first.where, prompt, outputs, readings: readingsOf(s) };
  });

  const packages = isObject(evalInfo.packages) ? evalInfo.packages : {};
  const generation = isObject(evalInfo.model_generate_config) ? evalInfo.model_generate_config : {};
  const unknown = [
    'the model weights: the log names a model, not its files, so no route, search, repair or mechanism probe can run on this run',
    'whether a sampling seed was honoured',
    'token counts per output, and whether an output was cut at the token limit (each is graded as a finished output)',
  ];
  if (generation.temperature === undefined) unknown.push("the decoding temperature: the log states none (the model provider's default was used); the manifest's 0 is a placeholder");
  return {
    tool: 'inspect_ai',
    toolVersion: typeof packages.inspect_ai === 'string' ? packages.inspect_ai : null,
    task: typeof evalInfo.task === 'string' ? evalInfo.task : 'unknown',
    model: typeof evalInfo.model === 'string' ? evalInfo.model : null,
    generation,
    unknown,
    questions,
  };
}
