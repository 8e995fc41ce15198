/**
 * The states of one audited question (docs/design.md section 1), derived once from its record so the
 * table can sort, filter and draw chips without looking into the record again. DOM-free.
 */
import type { AuditRecord } from './protocol';

/** Bit flags; a question can carry several (realized and blind-selectable, say). */
export const Flag = {
  realized: 1,
  reachable: 2,
  blind: 4,
  repaired: 8,
  unreached: 16,
  failureSet: 32,
  truncated: 64,
  damaged: 128,
} as const;

/** Sort order of the state column: what a reader wants first is what the deployment missed. */
export const StateRank = { unreached: 0, failureSet: 1, reachableOther: 2, realized: 3 } as const;

export interface QuestionRow {
  /** Position in the run (records order). */
  index: number;
  record: AuditRecord;
  id: string;
  /** Question text (or the prompt when the record has no question), verbatim. */
  text: string;
  /** One line, at most PREVIEW_CHARS characters, for the table cell. */
  preview: string;
  gold: string;
  answer: string;
  flags: number;
  reachableBy: string[];
  /** `probe/selector` pairs whose answer-blind pick is correct. */
  blindBy: string[];
  /** Blocks whose silenced MLP makes this unrealized question come out right. */
  repairedBy: number[];
  /** Blocks whose silenced MLP breaks this realized question (collateral damage). */
  damagedBy: number[];
  stateRank: number;
  /** Lower-cased text searched by the search box. */
  haystack: string;
}

/** Enough for the widest question column; longer text only costs layout time (ellipsis shapes it all). */
const PREVIEW_CHARS = 160;

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : String(value);
}

function oneLine(s: string): string {
  const collapsed = s.replace(/\s+/g, ' ').trim();
  return collapsed.length > PREVIEW_CHARS ? collapsed.slice(0, PREVIEW_CHARS - 1) + '…' : collapsed;
}

/** Blocks in ascending numeric order from a `{ "<block>": bool }` object. */
function blocksWhere(map: Record<string, boolean> | undefined, value: boolean): number[] {
  if (!map || typeof map !== 'object') return [];
  const out: number[] = [];
  for (const [key, v] of Object.entries(map)) {
    const block = Number(key);
    if (v === value && Number.isInteger(block)) out.push(block);
  }
  return out.sort((a, b) => a - b);
}

export function deriveRow(record: AuditRecord, index: number): QuestionRow {
  const realized = record.realized?.correct === true;
  const reachableBy: string[] = [];
  if (record.reachable && typeof record.reachable === 'object') {
    for (const [probe, reached] of Object.entries(record.reachable)) if (reached === true) reachableBy.push(probe);
  } else if (record.probes && typeof record.probes === 'object') {
    // Older or partial records: recompute reachability from per-attempt correctness.
    for (const [probe, result] of Object.entries(record.probes)) {
      if (result?.correct?.some((c) => c === true) || result?.attempts?.some((a) => a?.correct === true)) reachableBy.push(probe);
    }
  }
  const blindBy: string[] = [];
  if (record.blind && typeof record.blind === 'object') {
    for (const [probe, selectors] of Object.entries(record.blind)) {
      if (!selectors || typeof selectors !== 'object') continue;
      for (const [selector, pick] of Object.entries(selectors)) if (pick?.correct === true) blindBy.push(`${probe}/${selector}`);
    }
  }
  const repairMap = record.repair?.correctBySilencedBlock;
  const repairedBy = realized ? [] : blocksWhere(repairMap, true);
  const damagedBy = realized ? blocksWhere(repairMap, false) : [];
  const inFailureSet = record.repair ? record.repair.inFailureSet === true : !realized && reachableBy.length > 0;

  let flags = 0;
  if (realized) flags |= Flag.realized;
  if (reachableBy.length > 0) flags |= Flag.reachable;
  if (blindBy.length > 0) flags |= Flag.blind;
  if (repairedBy.length > 0) flags |= Flag.repaired;
  if (!realized && reachableBy.length === 0) flags |= Flag.unreached;
  if (inFailureSet) flags |= Flag.failureSet;
  if (record.realized?.truncated === true) flags |= Flag.truncated;
  if (damagedBy.length > 0) flags |= Flag.damaged;

  const stateRank = realized
    ? StateRank.realized
    : reachableBy.length === 0
      ? StateRank.unreached
      : inFailureSet
        ? StateRank.failureSet
        : StateRank.reachableOther;

  const id = text(record.id);
  const body = text(record.question) || text(record.prompt);
  const gold = text(record.gold);
  const answer = text(record.realized?.answer);
  return {
    index,
    record,
    id,
    text: body,
    preview: oneLine(body),
    gold,
    answer,
    flags,
    reachableBy,
    blindBy,
    repairedBy,
    damagedBy,
    stateRank,
    haystack: `${id}\u0000${body}\u0000${gold}\u0000${answer}`.toLowerCase(),
  };
}

/** A filter of the state dropdown: a value for the UI state and a test on a row. */
export interface StateFilter {
  value: string;
  label: string;
  test: (row: QuestionRow) => boolean;
}

export const BASE_FILTERS: StateFilter[] = [
  { value: 'all', label: 'All questions', test: () => true },
  { value: 'realized', label: 'Realized', test: (r) => (r.flags & Flag.realized) !== 0 },
  { value: 'unrealized', label: 'Not realized', test: (r) => (r.flags & Flag.realized) === 0 },
  { value: 'failureSet', label: 'Reachable, not realized (failure set)', test: (r) => (r.flags & Flag.failureSet) !== 0 },
  { value: 'reachable', label: 'Reachable by any probe', test: (r) => (r.flags & Flag.reachable) !== 0 },
  { value: 'blind', label: 'Blind-selectable', test: (r) => (r.flags & Flag.blind) !== 0 },
  { value: 'repaired', label: 'Repaired by a block', test: (r) => (r.flags & Flag.repaired) !== 0 },
  { value: 'damaged', label: 'Broken by a block (damage)', test: (r) => (r.flags & Flag.damaged) !== 0 },
  { value: 'unreached', label: 'Unreached', test: (r) => (r.flags & Flag.unreached) !== 0 },
];

/** Filters for one probe each ("reachable by routes"), added once the run's probes are known. */
export function probeFilter(probe: string): StateFilter {
  return { value: `probe:${probe}`, label: `Reachable by ${probe}`, test: (r) => r.reachableBy.includes(probe) };
}

/** The filter for a stored value; unknown values (a probe the new run lacks) fall back to all. */
export function findFilter(filters: readonly StateFilter[], value: string): StateFilter {
  return filters.find((f) => f.value === value) ?? filters[0];
}
