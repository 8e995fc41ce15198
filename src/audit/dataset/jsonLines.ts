/**
 * Splits a dataset file into records with their 1-based line positions: JSONL (one value a line;
 * CRLF, a BOM and blank lines tolerated) or a JSON array (each element parsed on its own, so one
 * malformed element is reported at its line and the others survive). Python's `json.dumps` writes
 * NaN, Infinity and -Infinity for non-finite floats (lm-eval's metric values); they read as null.
 * A record nesting deeper than MAX_JSON_DEPTH is reported at its line, before anything walks it.
 */
import { MAX_JSON_DEPTH, jsonTooDeep } from '../../common';

export interface JsonRecord {
  /** 1-based line where the record starts. */
  line: number;
  /** 1-based position among the records (JSON array index + 1, or the line for JSONL). */
  index: number;
  /** The parsed value, or undefined when it did not parse. */
  value?: unknown;
  /** Why it did not parse. */
  error?: string;
}

export interface JsonRecords {
  kind: 'jsonl' | 'json-array';
  records: JsonRecord[];
  /** A structural problem that stops reading (an unterminated JSON array), with its line. */
  fatal?: { line: number; message: string };
}

function parseError(e: unknown, expected: string, where = ''): string {
  return `invalid JSON${where} (${(e as Error).message}); expected ${expected}`;
}

/** Python's non-finite float literals, outside strings, as `null`; the text unchanged when it has none. */
export function withoutPythonFloats(text: string): string {
  if (!/NaN|Infinity/.test(text)) return text;
  return text.replace(/"(?:[^"\\]|\\.)*"|-?Infinity|NaN/g, (m) => (m.startsWith('"') ? m : 'null'));
}

/** JSON.parse, then Python's literals if that failed; throws the first parse error. */
function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const plain = withoutPythonFloats(text);
    if (plain === text) throw e;
    try {
      return JSON.parse(plain);
    } catch {
      throw e;
    }
  }
}

/** A parsed record, or why it cannot be kept: nested past the depth bound. */
function recordOf(line: number, index: number, value: unknown): JsonRecord {
  const deep = jsonTooDeep(value);
  if (deep === null) return { line, index, value };
  return { line, index, error: `field ${deep} nests more than ${MAX_JSON_DEPTH} objects and arrays deep (a fixed bound; no benchmark row or log line nests that deep)` };
}

function readJsonl(text: string): JsonRecords {
  const records: JsonRecord[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '');
    if (line.trim() === '') continue;
    try {
      records.push(recordOf(i + 1, i + 1, parseValue(line)));
    } catch (e) {
      records.push({ line: i + 1, index: i + 1, error: parseError(e, 'one JSON object per line') });
    }
  }
  return { kind: 'jsonl', records };
}

/** Walks the top-level array by bracket depth, outside strings, to find each element's span. */
function readJsonArray(text: string, open: number): JsonRecords {
  const records: JsonRecord[] = [];
  let line = 1;
  for (let i = 0; i < open; i++) if (text.charCodeAt(i) === 10) line++;

  let i = open + 1;
  let start = -1;
  let startLine = line;
  let depth = 0;
  let inString = false;
  let index = 0;
  const finish = (end: number): void => {
    const slice = text.slice(start, end);
    index++;
    if (slice.trim() === '') {
      records.push({ line: startLine, index, error: 'empty array element (stray comma)' });
    } else {
      try {
        records.push(recordOf(startLine, index, parseValue(slice)));
      } catch (e) {
        // V8 reports an offset inside the element; turn it into the file line a user can jump to.
        const at = /at position (\d+)/.exec((e as Error).message);
        const where = at ? ` at line ${startLine + (slice.slice(0, Number(at[1])).match(/\n/g)?.length ?? 0)}` : '';
        records.push({ line: startLine, index, error: parseError(e, 'each array element to be a JSON object', where) });
      }
    }
    start = -1;
  };
  for (; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\n') line++;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (start < 0 && depth === 0) {
      if (/\s/.test(ch)) continue;
      if (ch === ']') {
        if (index > 0 || records.length > 0) {
          // "[a, ]": a trailing comma before the bracket
          records.push({ line, index: index + 1, error: 'empty array element (trailing comma)' });
        }
        break;
      }
      start = i;
      startLine = line;
    }
    if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      if (depth === 0) {
        // the array's own closing bracket
        finish(i);
        break;
      }
      depth--;
    } else if (ch === ',' && depth === 0) {
      finish(i);
    }
  }
  if (i >= text.length) {
    return { kind: 'json-array', records, fatal: { line, message: 'the JSON array is not closed (missing "]" or an unterminated string)' } };
  }
  const rest = text.slice(i + 1);
  if (rest.trim() !== '') {
    const extra = line + (rest.slice(0, rest.search(/\S/)).match(/\n/g)?.length ?? 0);
    return { kind: 'json-array', records, fatal: { line: extra, message: 'unexpected text after the closing "]" of the JSON array' } };
  }
  return { kind: 'json-array', records };
}

export function readJsonRecords(text: string): JsonRecords {
  const body = text.charCodeAt(0) === 0xfeff ? ' ' + text.slice(1) : text; // keep offsets, drop the BOM
  const first = body.search(/\S/);
  if (first >= 0 && body[first] === '[' && !isJsonlOfArrays(body, first)) return readJsonArray(body, first);
  return readJsonl(body);
}

/** A first line that is a complete JSON value followed by more lines is JSONL, even if it is an array. */
function isJsonlOfArrays(body: string, first: number): boolean {
  const end = body.indexOf('\n', first);
  if (end < 0 || body.slice(end + 1).trim() === '') return false;
  try {
    JSON.parse(body.slice(first, end));
    return true;
  } catch {
    return false;
  }
}
