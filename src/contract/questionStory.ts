/**
 * A run of a few questions read question by question (docs/design/vscode-experience.md, "A run of a few
 * questions"): what the deployment answered against the gold and by which grading rule, per probe
 * how many of its B attempts were right and which routes or seeds they were, the answer-blind
 * picks, the repair row, and the run-level steps that were skipped with the reason. Rates and
 * intervals over so few questions say little (a Wilson interval over one question spans 0–79%),
 * so these runs lead with this story and show counts; rates come from RATE_MIN_QUESTIONS on.
 * Shared by the panel and the Audit side view, so both tell the same story. Pure; no DOM.
 */
import type { RunManifest } from './runManifest';
import type { QuestionRecord, SkipReason } from './runRecord';
import type { RunSummary } from './runSummary';
import { damagedBy, repairedBy } from './questionState';

/**
 * From this many questions on, rates are shown with their 95% intervals; below it the run is read
 * question by question and counted ("2 of 3"). At 20 questions a Wilson interval around 50% is
 * about ±20 points; below that it is too wide to compare anything. It is also the size from which
 * the global-route selector runs (ten questions to select on, ten held out).
 */
export const RATE_MIN_QUESTIONS = 20;

/** Up to this many questions each gets its own story card; more are counted and shown in the table. */
export const STORY_MAX_QUESTIONS = 5;

/** What each extraction rule reads (the rule names grade.ts records). */
export const RULE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'gsm8k-strict': 'the first “#### N”',
  'gsm8k-boxed': 'the last \\boxed{N}',
  'gsm8k-answer-phrase': 'a stated “the answer is N”',
  'gsm8k-flexible': 'the last number in the output',
  boxed: 'the last \\boxed{…}',
  'boxed-several': 'several \\boxed{…} of one final statement, as a list',
  'boxed-final-answer': 'a “final answer is X” phrase',
  'choice-answer-line': 'an answer phrase (“Answer: C”)',
  'choice-option': 'an “option X” mention',
  'choice-lone-letter': 'a lone choice label',
  'choice-leading-letter': 'a leading choice label',
  'choice-text': 'the text of one of the choices',
  'exact-answer-line': 'the “Answer:” line',
  exact: 'the whole output',
  regex: 'the configured pattern',
  none: 'no rule found an answer',
};

/** "read by gsm8k-strict (the first “#### N”)"; an unknown rule name as it is. */
export function ruleText(rule: string | undefined): string {
  if (!rule) return 'rule not recorded';
  if (rule === 'none') return 'no rule found an answer';
  const what = RULE_DESCRIPTIONS[rule];
  return what ? `read by ${rule} (${what})` : `read by ${rule}`;
}

/**
 * How the run decides "correct" (manifest `grading`), in words; the clause on outputs cut at the
 * token limit only when the output at hand was cut.
 */
export function gradingText(manifest: RunManifest | undefined, truncated = false): string | undefined {
  const grading = manifest?.grading;
  if (!grading) return undefined;
  const by = grading.correctBy === 'strict' ? 'graded by the answer marker only' : grading.correctBy === 'flexible' ? 'graded by the flexible reading' : 'graded by the stated answer';
  if (!truncated) return by;
  return `${by}; ${grading.truncated === 'lenient' ? 'a cut output is graded like any other' : 'a cut output counts only with an answer marker'}`;
}

/** One attempt that found the gold answer: where it came from. */
export interface RightAttempt {
  /** 0-based attempt index. */
  attempt: number;
  route?: number[];
  seed?: number;
  answer: string | null;
}

export interface ProbeStory {
  probe: string;
  /** The generation budget B. */
  budget: number;
  /** Attempts made (fewer than B when the route space ran out). */
  attempts: number;
  right: RightAttempt[];
  truncated: number;
  reachable: boolean;
  /** The most frequent answers over the attempts, most frequent first (at most 3). */
  answers: { answer: string | null; count: number }[];
}

export interface BlindStory {
  probe: string;
  selector: string;
  answer: string | null;
  correct: boolean;
  /** The attempt the selector picked (0-based), null when it picked none. */
  attempt: number | null;
}

export interface RepairStory {
  inFailureSet: boolean;
  realized: boolean;
  /** Blocks scanned (silenced one at a time). */
  scanned: number;
  /** Unrealized question: blocks whose silencing makes the answer right. */
  repairedBy: number[];
  /** Realized question: blocks whose silencing breaks it. */
  damagedBy: number[];
}

export interface QuestionStory {
  id: string;
  line: number;
  question: string;
  gold: string;
  /** Set when the question was not audited (its prompt does not fit the context). */
  skipped?: SkipReason;
  deployed: { answer: string | null; correct: boolean; rule: string; truncated: boolean };
  probes: ProbeStory[];
  blind: BlindStory[];
  repair?: RepairStory;
}

/**
 * Records reach the panel through postMessage and may come from an older run, so the reads below
 * tolerate a missing part (it is left out) instead of throwing in the page.
 */
function probeStory(probe: string, record: QuestionRecord): ProbeStory {
  const result = record.probes[probe];
  const attempts = Array.isArray(result.attempts) ? result.attempts : [];
  const right: RightAttempt[] = [];
  const tally = new Map<string | null, number>();
  let truncated = 0;
  attempts.forEach((a, i) => {
    if (a.correct) right.push({ attempt: i, ...(a.route ? { route: a.route } : {}), ...(a.seed !== undefined ? { seed: a.seed } : {}), answer: a.answer });
    if (a.truncated) truncated++;
    tally.set(a.answer, (tally.get(a.answer) ?? 0) + 1);
  });
  const answers = [...tally.entries()].map(([answer, count]) => ({ answer, count })).sort((x, y) => y.count - x.count).slice(0, 3);
  return { probe, budget: result.budget, attempts: attempts.length, right, truncated, reachable: record.reachable?.[probe] === true, answers };
}

/** The story of one question, from its record alone. */
export function questionStory(record: QuestionRecord): QuestionStory {
  const blind: BlindStory[] = [];
  for (const [probe, selectors] of Object.entries(record.blind ?? {})) {
    for (const [selector, pick] of Object.entries(selectors ?? {})) if (pick) blind.push({ probe, selector, answer: pick.answer, correct: pick.correct, attempt: pick.attempt });
  }
  const repair = record.repair;
  return {
    id: record.id,
    line: record.line,
    question: record.question,
    gold: record.gold,
    ...(record.skipped ? { skipped: record.skipped } : {}),
    deployed: { answer: record.realized?.answer ?? null, correct: record.realized?.correct === true, rule: record.realized?.rule ?? 'none', truncated: record.realized?.truncated === true },
    probes: Object.keys(record.probes ?? {}).filter((p) => record.probes[p]).map((p) => probeStory(p, record)),
    blind,
    ...(repair
      ? { repair: { inFailureSet: repair.inFailureSet, realized: record.realized?.correct === true, scanned: Object.keys(repair.correctBySilencedBlock ?? {}).length, repairedBy: repairedBy(record), damagedBy: damagedBy(record) } }
      : {}),
  };
}

/** A step of the audit that did not run, or ran without a result, and why. */
export interface SkippedStep {
  step: string;
  why: string;
}

/**
 * The run-level steps a run of few questions skips or cannot conclude, each with its reason:
 * the global-route pool (manifest `globalRoutes.skipped`), the identified repair block (chosen on
 * one half of the failure set and scored on the other, so it needs a failure set of at least two),
 * the repair scan when it was not asked for, and rates with intervals below RATE_MIN_QUESTIONS.
 */
export function skippedSteps(manifest: RunManifest | undefined, summary: RunSummary | undefined, records: readonly QuestionRecord[]): SkippedStep[] {
  const steps: SkippedStep[] = [];
  const n = summary?.n ?? records.filter((r) => !r.skipped).length;
  if (n < RATE_MIN_QUESTIONS) {
    steps.push({ step: 'Rates and 95% intervals', why: `shown from ${RATE_MIN_QUESTIONS} questions on; over ${n} question${n === 1 ? '' : 's'} a rate is a count and its interval spans most of 0–100%, so the run is read question by question and counted` });
  }
  const globalSkipped = manifest?.globalRoutes?.skipped;
  if (globalSkipped) steps.push({ step: 'Global-route selection', why: globalSkipped.replace(/^global-route selection skipped: /, '') });
  // The run files cross postMessage and may be partial (an older run): read them defensively.
  if (manifest?.repair?.enabled === false) {
    steps.push({ step: 'Repair scan', why: 'not asked for in this run (--repair)' });
  } else if (summary?.repair) {
    // Only from the finished run's summary: while a run goes its failure set is still growing.
    const failureSet = summary.repair.failureSetSize;
    const heldOut = summary.repair.n;
    if (failureSet === 0) {
      steps.push({ step: 'Repair analysis', why: 'the failure set is empty: no question was reached by the reference probe(s) without being realized, so there is nothing to repair (the scan still checked the realized questions for damage)' });
    } else if (heldOut === 0) {
      steps.push({
        step: 'Identified repair block',
        why: `no repair rate: the block is chosen on one half of the failure set and its rate measured on the other half, which needs a failure set of at least 2 questions (this run's has ${failureSet})`,
      });
    }
  }
  return steps;
}

/** Counts over the questions of a small run, for the line above the stories: "realized 1 of 3". */
export interface StoryCounts {
  n: number;
  realized: number;
  reachable: { probe: string; count: number }[];
  reachableAny: number;
  failureSet: number;
  skipped: number;
}

export function storyCounts(records: readonly QuestionRecord[]): StoryCounts {
  const audited = records.filter((r) => !r.skipped);
  const probes: string[] = [];
  for (const r of audited) for (const p of Object.keys(r.probes ?? {})) if (!probes.includes(p)) probes.push(p);
  return {
    n: audited.length,
    realized: audited.filter((r) => r.realized?.correct === true).length,
    reachable: probes.map((probe) => ({ probe, count: audited.filter((r) => r.reachable?.[probe] === true).length })),
    reachableAny: audited.filter((r) => Object.values(r.reachable ?? {}).some((x) => x === true)).length,
    failureSet: audited.filter((r) => r.repair?.inFailureSet === true).length,
    skipped: records.length - audited.length,
  };
}

/** "2 of 3". */
export function ofText(k: number, n: number): string {
  return `${k} of ${n}`;
}

// The story's words, said once for the panel (storyView.ts) and the Audit side view (storyHtml.ts).

/** Headings and fixed sentences of a story. */
export const STORY_WORDS = {
  blindPicks: 'Answer-blind picks',
  noProbe: 'No probe ran on this question.',
  skippedSteps: 'Skipped for so few questions',
  right: '✓ right',
  wrong: '✗ wrong',
} as const;

/** "3 questions", "1 question so far" (a run still going). */
export function questionsText(n: number, live = false): string {
  return `${n.toLocaleString('en-US')} question${n === 1 ? '' : 's'}${live ? ' so far' : ''}`;
}

/**
 * The counts after the number of questions: "realized 1 of 3 · reachable by sample 2 of 3, routes
 * 1 of 3 · by any probe 2 of 3 · failure set 1 · 1 not audited (prompt too long)". The failure set
 * is counted (0 included) when the run scanned for repairs.
 */
export function countsText(c: StoryCounts, repairScanned: boolean): string {
  const parts = [`realized ${ofText(c.realized, c.n)}`];
  if (c.reachable.length > 0) parts.push(`reachable by ${c.reachable.map((r) => `${r.probe} ${ofText(r.count, c.n)}`).join(', ')}`);
  if (c.reachable.length > 1) parts.push(`by any probe ${ofText(c.reachableAny, c.n)}`);
  if (repairScanned) parts.push(`failure set ${c.failureSet.toLocaleString('en-US')}`);
  if (c.skipped > 0) parts.push(`${c.skipped.toLocaleString('en-US')} not audited (prompt too long)`);
  return parts.join(' · ');
}

/** How the deployed answer was read: "read by gsm8k-strict (…) · cut at the token limit · graded by …". */
export function readingText(deployed: QuestionStory['deployed'], grading: string | undefined): string {
  return `${ruleText(deployed.rule)}${deployed.truncated ? ' · cut at the token limit' : ''}${grading ? ` · ${grading}` : ''}`;
}

/** A question whose prompt does not fit: "Not audited: …". */
export function notAuditedText(skipped: SkipReason): string {
  return `Not audited: ${skipped.message}`;
}

/** "Question arith-0001". */
export function questionTitle(id: string): string {
  return `Question ${id}`;
}

/** "line 12", or nothing when the line is unknown. */
export function lineText(line: number): string {
  return Number.isFinite(line) ? `line ${line}` : '';
}

/** An attempt that was right: "#3". */
export function attemptText(attempt: number): string {
  return `#${attempt + 1}`;
}

/** A route as its block indices: "0 1 2 2 3 5 6 7". */
export function routeText(route: readonly number[]): string {
  return route.join(' ');
}

/** The answer as shown: the text, or "no answer" when no rule found one. */
export function answerText(answer: string | null): string {
  return answer === null || answer === '' ? 'no answer' : answer;
}

/** One line per probe: "routes: 3 of 8 attempts right (#2, #5, #7) · reachable". */
export function probeLine(p: ProbeStory): string {
  const made = p.attempts < p.budget ? `${p.attempts} made of budget ${p.budget} (route space ran out)` : `${p.budget}`;
  const which = p.right.length ? ` (${p.right.map((r) => `#${r.attempt + 1}`).join(', ')})` : '';
  const cut = p.truncated ? `; ${p.truncated} cut at the token limit` : '';
  return `${p.probe}: ${p.right.length} of ${made} attempts right${which}${cut} · ${p.reachable ? 'reachable' : 'not reached'}`;
}

/** "routes → majority: 8 ✓ (attempt #3)". */
export function blindLine(b: BlindStory): string {
  return `${b.probe} → ${b.selector}: ${answerText(b.answer)} ${b.correct ? STORY_WORDS.right : STORY_WORDS.wrong}${b.attempt === null ? '' : ` (attempt #${b.attempt + 1})`}`;
}

/** The repair row in words. */
export function repairLine(r: RepairStory): string {
  if (r.scanned === 0) {
    return r.realized || r.inFailureSet
      ? 'No block was scanned for this question'
      : 'Not scanned: the scan silences blocks for failure-set questions (to repair them) and realized ones (to measure damage); this question is neither';
  }
  const blocks = (b: number[]) => `block${b.length === 1 ? '' : 's'} ${b.join(', ')}`;
  if (r.realized) return r.damagedBy.length === 0 ? `Realized; silencing any of the ${r.scanned} blocks keeps it right` : `Realized; silencing ${blocks(r.damagedBy)} breaks it (of ${r.scanned} scanned)`;
  const where = r.inFailureSet ? 'In the failure set (reachable, not realized)' : 'Not in the failure set (no reference probe reached it)';
  return r.repairedBy.length === 0 ? `${where}; no single silenced block of ${r.scanned} makes it right` : `${where}; silencing ${blocks(r.repairedBy)} makes it right (of ${r.scanned} scanned)`;
}
