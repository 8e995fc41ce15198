/**
 * The table row of one audited question (docs/design/probes.md): its states (from the
 * contract's derivations) folded into flags once, so the table can sort, filter and draw chips
 * without looking into the record again. DOM-free.
 */
import { damagedBy, harnessDisagreement, reachableBy as probesReaching, repairedBy as blocksRepairing, type QuestionRecord } from '../../../src/contract';

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
  /** The deployed output's thought never closed: cut while thinking, no answer read. */
  unfinishedThought: 256,
  /** Skipped (its prompt does not fit the context, or it is one of the prompt's examples): nothing was generated, so no state. */
  notAudited: 512,
  /** Not realized and no probe ran on it (an imported log): unknown, not unreached. */
  notProbed: 1024,
} as const;

/** Sort order of the state column: what a reader wants first is what the deployment missed. */
export const StateRank = { unreached: 0, failureSet: 1, reachableOther: 2, realized: 3, notProbed: 4, notAudited: 5 } as const;

export interface QuestionRow {
  /** Position in the run (records order). */
  index: number;
  record: QuestionRecord;
  id: string;
  /** Question text, verbatim. */
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

function oneLine(s: string): string {
  const collapsed = s.replace(/\s+/g, ' ').trim();
  return collapsed.length > PREVIEW_CHARS ? collapsed.slice(0, PREVIEW_CHARS - 1) + '…' : collapsed;
}

export function deriveRow(record: QuestionRecord, index: number): QuestionRow {
  const realized = record.realized.correct;
  const reachableBy = probesReaching(record);
  const blindBy: string[] = [];
  for (const [probe, selectors] of Object.entries(record.blind)) {
    for (const [selector, pick] of Object.entries(selectors)) if (pick.correct) blindBy.push(`${probe}/${selector}`);
  }
  const repairedBy = blocksRepairing(record);
  const damaged = damagedBy(record);
  // Without a repair scan the reference probes are unknown: any probe counts.
  const inFailureSet = record.repair ? record.repair.inFailureSet : !realized && reachableBy.length > 0;

  // A question nothing was generated for, or that no probe tried, has no reach to speak of.
  const notAudited = record.skipped !== undefined;
  const notProbed = !notAudited && !realized && Object.keys(record.probes ?? {}).length === 0 && Object.keys(record.reachable ?? {}).length === 0;

  let flags = 0;
  if (realized) flags |= Flag.realized;
  if (reachableBy.length > 0) flags |= Flag.reachable;
  if (blindBy.length > 0) flags |= Flag.blind;
  if (repairedBy.length > 0) flags |= Flag.repaired;
  if (notAudited) flags |= Flag.notAudited;
  else if (notProbed) flags |= Flag.notProbed;
  else if (!realized && reachableBy.length === 0) flags |= Flag.unreached;
  if (inFailureSet) flags |= Flag.failureSet;
  if (record.realized.truncated) flags |= Flag.truncated;
  if (damaged.length > 0) flags |= Flag.damaged;
  if (record.realized.thought === 'unfinished') flags |= Flag.unfinishedThought;

  const stateRank = notAudited
    ? StateRank.notAudited
    : notProbed
    ? StateRank.notProbed
    : realized
    ? StateRank.realized
    : reachableBy.length === 0
      ? StateRank.unreached
      : inFailureSet
        ? StateRank.failureSet
        : StateRank.reachableOther;

  const id = String(record.id); // a foreign or partial record may carry a number
  const body = record.question;
  const gold = record.gold;
  const answer = record.realized.answer ?? '';
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
    damagedBy: damaged,
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
  { value: 'notAudited', label: 'Not audited (skipped)', test: (r) => (r.flags & Flag.notAudited) !== 0 },
];

/** Filters for one probe each ("reachable by routes"), added once the run's probes are known. */
export function probeFilter(probe: string): StateFilter {
  return { value: `probe:${probe}`, label: `Reachable by ${probe}`, test: (r) => r.reachableBy.includes(probe) };
}

/**
 * Interface failures of one harness reading (an imported run's lm-eval filter or Inspect scorer),
 * added once the run's readings are known: the questions where the harness's verdict and ours
 * disagree on the same deployed output, either way (it missed an answer that is there, or counted one
 * that is not).
 */
export function interfaceFailureFilter(reading: string): StateFilter {
  return { value: `interface:${reading}`, label: `Interface failures: harness ${reading} and our grader disagree`, test: (r) => harnessDisagreement(r.record, reading) !== null };
}

/** The filter for a stored value; unknown values (a probe the new run lacks) fall back to all. */
export function findFilter(filters: readonly StateFilter[], value: string): StateFilter {
  return filters.find((f) => f.value === value) ?? filters[0];
}
