/**
 * How deep a parsed JSON value nests, found without recursion. `JSON.parse` takes any depth, but
 * `JSON.stringify` (hashing, records, manifests) and every recursive walk overflow the stack from
 * about 5,000 levels with an error that names no file; so values read from files are checked here,
 * where the file and line are still known.
 */

/**
 * The deepest nesting of objects and arrays taken from a file. Benchmark rows and harness logs
 * nest a few levels (a chat's messages, a scorer's metadata); 1,000 leaves room for anything real
 * while staying far below the depth at which a recursive walk overflows. The bound is fixed.
 */
export const MAX_JSON_DEPTH = 1000;

interface Frame {
  value: unknown;
  depth: number;
  key: string;
  parent: Frame | undefined;
}

/**
 * Where `value` nests deeper than `maxDepth` objects and arrays, as the path of its first too-deep
 * field (`arguments.gen_args_0.arg_1.a.a…`, shortened), or null when it does not.
 */
export function jsonTooDeep(value: unknown, maxDepth = MAX_JSON_DEPTH): string | null {
  const stack: Frame[] = [{ value, depth: 0, key: '', parent: undefined }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (typeof v !== 'object' || v === null) continue;
    const depth = frame.depth + 1;
    if (depth > maxDepth) return pathOf(frame);
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) if (typeof v[i] === 'object' && v[i] !== null) stack.push({ value: v[i], depth, key: `[${i}]`, parent: frame });
    } else {
      for (const [k, x] of Object.entries(v)) if (typeof x === 'object' && x !== null) stack.push({ value: x, depth, key: k, parent: frame });
    }
  }
  return null;
}

/** The field path of a frame: its first four keys, then how many more levels. */
function pathOf(frame: Frame): string {
  const keys: string[] = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) keys.push(f.key);
  keys.reverse();
  const shown = keys.slice(0, 4).map((k, i) => (k.startsWith('[') || i === 0 ? k : `.${k}`)).join('');
  return keys.length > 4 ? `${shown}… (${keys.length - 4} levels more)` : shown || '(the value itself)';
}
