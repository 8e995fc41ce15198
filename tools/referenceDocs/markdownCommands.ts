/**
 * The parts of the documentation's Markdown that a test checks against the repository: its relative
 * links (outside code) and the `reach-audit` / `node dist/cli.js` command lines of its shell blocks.
 */

export interface MarkdownLink {
  target: string;
  line: number;
}

export interface CommandLine {
  /** The subcommand, e.g. `audit`. */
  command: string;
  /** The flags written, without their values (`--probe`). */
  flags: string[];
  line: number;
  text: string;
}

/** Links and images outside fenced blocks and inline code: `[text](target)`, `![alt](target)`. */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((raw, i) => {
    const marker = /^\s*(```+|~~~+)/.exec(raw)?.[1];
    if (marker) {
      if (fence === undefined) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    const line = raw.replace(/`[^`]*`/g, '``');
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: m[1], line: i + 1 });
  });
  return links;
}

/** Stands between two commands of one line (`a && b`, `a; b`, `a | b`) in shellWords' result. */
export const COMMAND_BREAK = '\u0000';

/**
 * Splits a shell line into words, honouring quotes; an unquoted `#` that starts a word ends the line
 * (a comment), and unquoted `;`, `&` and `|` end a command (COMMAND_BREAK).
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else word += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= '';
      continue;
    }
    if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      continue;
    }
    if (ch === '#' && word === undefined) break;
    if (ch === ';' || ch === '&' || ch === '|') {
      if (word !== undefined) words.push(word);
      word = undefined;
      if (words[words.length - 1] !== COMMAND_BREAK) words.push(COMMAND_BREAK);
      continue;
    }
    word = (word ?? '') + ch;
  }
  if (word !== undefined) words.push(word);
  return words;
}

const SHELL_FENCE = /^\s*```+\s*(sh|bash|shell|console)\s*$/;

/** Each command line of the shell blocks that runs the CLI, continuation lines joined. */
export function cliCommandLines(markdown: string): CommandLine[] {
  const found: CommandLine[] = [];
  const lines = markdown.split('\n');
  let inShell = false;
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*```/.test(lines[i])) {
      inShell = !inFence && SHELL_FENCE.test(lines[i]);
      inFence = !inFence;
      continue;
    }
    if (!inShell) continue;
    const start = i;
    let text = lines[i];
    while (/\\\s*$/.test(text) && i + 1 < lines.length) text = text.replace(/\\\s*$/, ' ') + lines[++i];
    const all = shellWords(text);
    const segments: string[][] = [[]];
    for (const w of all) {
      if (w === COMMAND_BREAK) segments.push([]);
      else segments[segments.length - 1].push(w);
    }
    for (const words of segments) {
      while (words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) words.shift();
      let rest: string[] | undefined;
      if (words[0] === 'reach-audit') rest = words.slice(1);
      else if (words[0] === 'node' && words[1] === 'dist/cli.js') rest = words.slice(2);
      if (!rest || rest.length === 0) continue;
      const flags = rest.slice(1)
        .map((w) => w.replace(/^\[+/, '').replace(/\]+$/, ''))
        .filter((w) => /^--[a-z0-9]/i.test(w))
        .map((w) => w.replace(/=.*$/, ''));
      found.push({ command: rest[0], flags, line: start + 1, text: text.trim() });
    }
  }
  return found;
}
