/**
 * The checkpoints of a watched training run and where each stands: being written, queued, being
 * audited, done, or skipped (and why). Each poll's view of the folder goes in through `observe`;
 * `next` hands out the queued checkpoint earliest in training order. A checkpoint that vanishes
 * (the trainer's rotation keeps only the last few) before its audit is skipped and named; one
 * already audited stays in the trajectory, since its run folder is kept. No I/O.
 */
import { compareCheckpointNames, inTrainingOrder } from './checkpointOrder';
import type { Readiness } from './checkpointReadiness';

/** `final`: skipped because it could not be audited; not queued again by this watch (a restarted one tries it again). */
type Entry = { state: 'writing'; why: string } | { state: 'queued' } | { state: 'auditing' } | { state: 'done' } | { state: 'skipped'; why: string; final?: boolean };

export interface WatchStatus {
  auditing: string | undefined;
  /** In training order. */
  queued: string[];
  writing: { name: string; why: string }[];
  /** In training order. */
  done: string[];
  skipped: { name: string; why: string }[];
}

export const DELETED_BEFORE_AUDIT = 'deleted before its audit';
export const DELETED_WHILE_WRITTEN = 'deleted before it was complete';

export class CheckpointQueue {
  private readonly entries = new Map<string, Entry>();

  /** `done`: checkpoints audited before (a restarted watch). */
  constructor(done: Iterable<string> = []) {
    for (const name of done) this.entries.set(name, { state: 'done' });
  }

  /** One poll: every checkpoint folder present now, with its readiness. */
  observe(present: ReadonlyMap<string, Readiness>): void {
    for (const [name, readiness] of present) {
      const entry = this.entries.get(name);
      if (entry && (entry.state === 'done' || entry.state === 'auditing' || entry.state === 'queued')) continue;
      if (entry?.state === 'skipped' && entry.final) continue;
      if (readiness.state === 'not-a-checkpoint') {
        if (entry?.state === 'writing') this.entries.delete(name);
        continue;
      }
      this.entries.set(name, readiness.state === 'ready' ? { state: 'queued' } : { state: 'writing', why: readiness.why });
    }
    for (const [name, entry] of this.entries) {
      if (present.has(name)) continue;
      if (entry.state === 'queued') this.entries.set(name, { state: 'skipped', why: DELETED_BEFORE_AUDIT });
      else if (entry.state === 'writing') this.entries.set(name, { state: 'skipped', why: DELETED_WHILE_WRITTEN });
    }
  }

  /** Queued, being audited, done or failed: its folder needs no more reading (its headers are not read again each poll). */
  settled(name: string): boolean {
    const entry = this.entries.get(name);
    return entry?.state === 'queued' || entry?.state === 'auditing' || entry?.state === 'done' || (entry?.state === 'skipped' && entry.final === true);
  }

  /** The queued checkpoint earliest in training order. */
  next(): string | undefined {
    return inTrainingOrder(this.named('queued'))[0];
  }

  start(name: string): void {
    this.expect(name, 'queued');
    this.entries.set(name, { state: 'auditing' });
  }

  finish(name: string): void {
    this.expect(name, 'auditing');
    this.entries.set(name, { state: 'done' });
  }

  /** A checkpoint that went away during its audit (or could not be read): skipped, with why. */
  skip(name: string, why: string): void {
    this.entries.set(name, { state: 'skipped', why });
  }

  /** A checkpoint that is there but cannot be audited (it does not load, or its run refuses it): skipped for this watch, with why. */
  fail(name: string, why: string): void {
    this.entries.set(name, { state: 'skipped', why, final: true });
  }

  /** A stopped audit: the checkpoint is queued again (a restarted watch resumes it). */
  requeue(name: string): void {
    this.expect(name, 'auditing');
    this.entries.set(name, { state: 'queued' });
  }

  done(): string[] {
    return inTrainingOrder(this.named('done'));
  }

  /** Nothing queued, being audited or being written. */
  idle(): boolean {
    return [...this.entries.values()].every((e) => e.state === 'done' || e.state === 'skipped');
  }

  status(): WatchStatus {
    const withWhy = (state: 'writing' | 'skipped') =>
      [...this.entries]
        .flatMap(([name, e]) => (e.state === state ? [{ name, why: e.why }] : []))
        .sort((a, b) => compareCheckpointNames(a.name, b.name));
    return { auditing: this.named('auditing')[0], queued: inTrainingOrder(this.named('queued')), writing: withWhy('writing'), done: this.done(), skipped: withWhy('skipped') };
  }

  private named(state: Entry['state']): string[] {
    return [...this.entries].filter(([, e]) => e.state === state).map(([name]) => name);
  }

  private expect(name: string, state: Entry['state']): void {
    const now = this.entries.get(name)?.state;
    if (now !== state) throw new Error(`checkpoint queue: ${name} is ${now ?? 'unknown'}, expected ${state}`);
  }
}

/** The status as one line: the checkpoint being audited (or next), how many are queued, being written, done, and those skipped. */
/** Folders named on a status line per kind: 3,000 folders being written made lines of 160 KB. */
const NAMED_ON_STATUS_LINE = 5;

/** The first few items, then how many more. */
function firstFew(items: readonly string[], separator: string): string {
  const more = items.length - NAMED_ON_STATUS_LINE;
  return items.slice(0, NAMED_ON_STATUS_LINE).join(separator) + (more > 0 ? `${separator}and ${more} more` : '');
}

/** Reasons for "being written" named on a status line, and the characters each may take. */
const REASONS_ON_STATUS_LINE = 3;
const REASON_CHARS = 200;

/**
 * A long reason keeps its end (what is wrong) and, when it starts by naming its file ("model.safetensors: …"),
 * that name; the middle goes.
 */
function clipped(text: string): string {
  const colon = text.indexOf(': ');
  const head = colon > 0 && colon <= 80 ? text.slice(0, colon + 2) : '';
  if (text.length <= head.length + REASON_CHARS) return text;
  return `${head}…${text.slice(text.length - REASON_CHARS + 1)}`;
}

/** A reason with the paths into the checkpoint's own folder cut to the file's name (the line names the folder already). */
const withinFolder = (name: string, why: string) => why.replace(new RegExp(`\\S*[/\\\\]${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[/\\\\]`, 'g'), '');

/**
 * The folders being written, grouped by reason: "a, b and 3 more: files still changing; c: no
 * config.json yet". Each reason once (a weights problem can run to a few hundred characters, and
 * five folders with one made a 1.3 KB line), clipped from the front, at most three, then how many folders are left.
 */
function writingText(writing: WatchStatus['writing']): string {
  const byReason = new Map<string, string[]>();
  for (const w of writing) {
    const why = withinFolder(w.name, w.why);
    const names = byReason.get(why);
    if (names) names.push(w.name);
    else byReason.set(why, [w.name]);
  }
  const groups = [...byReason];
  const shown = groups.slice(0, REASONS_ON_STATUS_LINE).map(([why, names]) => {
    const more = names.length - NAMED_ON_STATUS_LINE;
    return `${names.slice(0, NAMED_ON_STATUS_LINE).join(', ')}${more > 0 ? ` and ${more} more` : ''}: ${clipped(why)}`;
  });
  const rest = groups.slice(REASONS_ON_STATUS_LINE);
  const restFolders = rest.reduce((n, [, names]) => n + names.length, 0);
  if (rest.length > 0) shown.push(`and ${restFolders} more for ${rest.length} other reason${rest.length === 1 ? '' : 's'}`);
  return shown.join('; ');
}

export function watchStatusLine(status: WatchStatus): string {
  const parts = [status.auditing !== undefined ? `auditing ${status.auditing}` : status.queued.length > 0 ? `next ${status.queued[0]}` : 'waiting for checkpoints'];
  parts.push(`${status.queued.length} queued`);
  if (status.writing.length > 0) parts.push(`${status.writing.length} being written (${writingText(status.writing)})`);
  parts.push(`${status.done.length} done`);
  if (status.skipped.length > 0) parts.push(`skipped ${firstFew(status.skipped.map((s) => `${s.name} (${s.why})`), ', ')}`);
  return parts.join(' · ');
}
