/**
 * Inspect AI logs read into a HarnessLog: a `.eval` file (a zip of `header.json` and one
 * `samples/<id>_epoch_<n>.json` per sample and epoch, or the chunked `samples/<id>_epoch_<n>/sample.json`)
 * or a `.json` log (`eval` and `samples` in one object). A sample's `input`, `choices` and `target`
 * are its benchmark row; its epochs' outputs, in epoch order, are the deployment's (epoch 1) and the
 * sample probe's; each scorer's `answer` and C/I value are the harness's reading.
 */
import { InputError, MAX_JSON_DEPTH, MAX_TEXT_FILE_BYTES, jsonTooDeep } from '../../common';
import { isObject } from '../../contract';
import type { HarnessLog, HarnessReading, LoggedQuestion } from './harnessLog';
import { DuplicateEntryError, ZipReader, zipDirectory, type InflateBounds, type ZipEntry } from './zipEntries';

type Json = Record<string, unknown>;

const SAMPLE_ENTRY = /^samples\/(.+)_epoch_(\d+)(?:\.json|\/sample\.json)$/;
const ATTACHMENT_ENTRY = /^(samples\/.+_epoch_\d+\/)attachments\/(\d+)\.json$/;

/**
 * What an Inspect .eval's entries may inflate to: one entry is read as one text, and the whole log
 * as much as a .json log may hold, so a zip bomb stops at the bound instead of filling the memory.
 */
export const INSPECT_INFLATE_BOUNDS: InflateBounds = { entryBytes: MAX_TEXT_FILE_BYTES, totalBytes: 1024 * 1024 * 1024 };
const INFLATE_ADVICE = 'fixed bounds that keep an import within memory; import a log of fewer samples or epochs (inspect eval --limit, --epochs)';

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

/** The chunked layout's attachment lists, indexed once: per sample folder (`samples/<id>_epoch_<n>/`), each attachments/<start>.json. */
function attachmentIndex(names: Iterable<string>): Map<string, { start: number; entry: string }[]> {
  const index = new Map<string, { start: number; entry: string }[]>();
  for (const name of names) {
    const m = ATTACHMENT_ENTRY.exec(name);
    if (!m) continue;
    const list = index.get(m[1]) ?? [];
    list.push({ start: Number(m[2]), entry: name });
    index.set(m[1], list);
  }
  return index;
}

/** A chunked sample's attachments: each attachments/<start>.json a list of strings, item i referenced as attachment://<start + i>. */
function chunkedAttachments(lists: readonly { start: number; entry: string }[], json: (name: string) => unknown): Json {
  const out: Json = {};
  for (const { start, entry } of lists) {
    const list = json(entry);
    if (Array.isArray(list)) list.forEach((text, i) => (out[String(start + i)] = text));
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
  let samples: { sample: Json; where: string; epochOfName?: number }[];
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) {
    let directory: Map<string, ZipEntry>;
    try {
      directory = zipDirectory(bytes);
    } catch (e) {
      if (e instanceof DuplicateEntryError) throw new InputError(`${file}: the archive lists ${e.entry} twice; which one is the log's cannot be told, so neither is read`);
      throw new InputError(`${file}: not a complete zip archive (${(e as Error).message}); an Inspect .eval log is a zip of header.json and samples/, and this one may be cut short`);
    }
    // Only the log's own entries are inflated (header.json, the samples and their attachments), each within the bounds.
    const zip = new ZipReader(file, bytes, INSPECT_INFLATE_BOUNDS, INFLATE_ADVICE);
    const decoder = new TextDecoder();
    const json = (name: string): unknown => {
      let v: unknown;
      try {
        v = JSON.parse(decoder.decode(zip.read(directory.get(name)!)));
      } catch (e) {
        if (e instanceof InputError) throw e;
        throw new InputError(`${file}: ${name} is not valid JSON (${(e as Error).message})`);
      }
      const deep = jsonTooDeep(v);
      if (deep !== null) throw new InputError(`${file}: ${name}: field ${deep} nests more than ${MAX_JSON_DEPTH} objects and arrays deep (a fixed bound; no Inspect log nests that deep)`);
      return v;
    };
    if (!directory.has('header.json')) throw new InputError(`${file}: a zip without header.json; expected an Inspect .eval log (header.json and samples/<id>_epoch_<n>.json)`);
    const own = [...directory.values()].filter((e) => e.name === 'header.json' || SAMPLE_ENTRY.test(e.name) || ATTACHMENT_ENTRY.test(e.name));
    zip.reserve(own);
    const h = json('header.json');
    if (!isObject(h) || !isObject(h.eval)) throw new InputError(`${file}: header.json has no "eval" object; expected an Inspect .eval log`);
    header = h;
    const attachments = attachmentIndex(directory.keys());
    samples = [...directory.keys()]
      .filter((n) => SAMPLE_ENTRY.test(n))
      .map((n) => {
        const s = json(n);
        if (!isObject(s)) throw new InputError(`${file}: ${n} is not a sample object`);
        const named = SAMPLE_ENTRY.exec(n)!;
        // The chunked layout keeps a sample's attachments as an indexed sequence in attachments/<start>.json.
        if (n.endsWith('/sample.json')) s.attachments = { ...(isObject(s.attachments) ? s.attachments : {}), ...chunkedAttachments(attachments.get(n.slice(0, -'sample.json'.length)) ?? [], json) };
        return { sample: s, where: `${file}:${n}`, epochOfName: Number(named[2]) };
      });
  } else {
    let v: unknown;
    try {
      v = JSON.parse(new TextDecoder().decode(bytes));
    } catch (e) {
      throw new InputError(`${file}: not valid JSON (${(e as Error).message}); expected an Inspect .json or .eval log`);
    }
    if (!isObject(v) || !isObject(v.eval) || !Array.isArray(v.samples)) throw new InputError(`${file}: not an Inspect log: expected an object with "eval" and "samples"`);
    const deep = jsonTooDeep(v);
    if (deep !== null) throw new InputError(`${file}: field ${deep} nests more than ${MAX_JSON_DEPTH} objects and arrays deep (a fixed bound; no Inspect log nests that deep)`);
    header = v;
    samples = (v.samples as unknown[]).map((s, i) => {
      if (!isObject(s)) throw new InputError(`${file}: samples[${i}] is not an object`);
      return { sample: s, where: `${file}: samples[${i}]` };
    });
  }
  if (samples.length === 0) throw new InputError(`${file}: the log has no samples (logged with --no-log-samples, or the run did not finish any)`);
  const evalInfo = header.eval as Json;

  const byId = new Map<string, { epochs: { epoch: number; sample: Json; where: string }[] }>();
  const seen = new Map<string, string>();
  for (const { sample, where, epochOfName } of samples) {
    if (typeof sample.id !== 'string' && typeof sample.id !== 'number') throw new InputError(`${where}: field "id" is ${JSON.stringify(sample.id)}; expected a sample id`);
    if (sample.epoch !== undefined && !Number.isInteger(sample.epoch)) throw new InputError(`${where}: field "epoch" is ${JSON.stringify(sample.epoch)}; expected an epoch number`);
    // An entry's name says its epoch too: a sample filed under another epoch than its own is refused, not guessed at.
    if (epochOfName !== undefined && sample.epoch !== undefined && sample.epoch !== epochOfName) throw new InputError(`${where}: field "epoch" is ${sample.epoch as number}, but the entry is named for epoch ${epochOfName}`);
    const epoch = (sample.epoch as number | undefined) ?? epochOfName ?? 1;
    const key = `${String(sample.id)}\u0000${epoch}`;
    const twin = seen.get(key);
    if (twin !== undefined) throw new InputError(`${where}: sample ${JSON.stringify(sample.id)} epoch ${epoch} is also at ${twin}; each sample and epoch is expected once (which is the deployment's output cannot be told)`);
    seen.set(key, where);
    const entry = byId.get(String(sample.id)) ?? { epochs: [] };
    entry.epochs.push({ epoch, sample, where });
    byId.set(String(sample.id), entry);
  }
  // Questions in the order of the dataset's ids as the header lists them, else in first-seen order.
  const listed = isObject(evalInfo.dataset) && Array.isArray(evalInfo.dataset.sample_ids) ? (evalInfo.dataset.sample_ids as unknown[]).map(String) : [];
  const listedSet = new Set(listed);
  const order = [...new Set(listed.filter((id) => byId.has(id))), ...[...byId.keys()].filter((id) => !listedSet.has(id))];
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
