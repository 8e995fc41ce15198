/**
 * Nothing a dataset, a model or a run file holds can drive the terminal: every string the CLI
 * writes to stdout or stderr has its control characters (C0 but newline and tab, DEL, C1) and bidi
 * overrides written as \uXXXX escapes. That form is also a valid JSON string escape, so --json
 * output and the serve protocol decode to the same text. The CLI's own cursor control (the progress
 * line) goes through writeControl, the only way around the filter.
 */

const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

export function escapeControls(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

type Write = (chunk: string | Uint8Array, ...rest: unknown[]) => boolean;
const rawWriters = new Map<NodeJS.WriteStream, Write>();

/** Filters every later string written to process.stdout and process.stderr through escapeControls. */
export function guardTerminalOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (rawWriters.has(stream)) continue;
    const original = stream.write.bind(stream) as Write;
    rawWriters.set(stream, original);
    const filtered: Write = (chunk, ...rest) => original(typeof chunk === 'string' ? escapeControls(chunk) : chunk, ...rest);
    stream.write = filtered as typeof stream.write;
  }
}

/** Writes the CLI's own terminal control sequence (e.g. "\r\x1b[2K" to redraw the progress line), unfiltered. */
export function writeControl(stream: NodeJS.WriteStream, sequence: string): void {
  (rawWriters.get(stream) ?? (stream.write.bind(stream) as Write))(sequence);
}
