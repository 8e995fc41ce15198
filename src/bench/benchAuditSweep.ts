/**
 * `reach-audit bench --audit --audit-sizes N,… --audit-budgets B,…`: how the audit's cost grows
 * with the number of questions and the budget. Every (questions, budget) cell runs the audit
 * workload of benchAudit.ts through the scheduler alone, on one loaded model; the questions of a
 * smaller size are the first questions of the larger, so the cells differ only in how much of one
 * workload they run.
 *
 * The cells run in interleaved rounds: round r runs every cell once, starting at cell r (the order
 * rotates), so a drift in the machine's speed falls on every cell rather than on whichever ran
 * last, and a cell's ratio to its reference is taken within one round. Each cell starts with an
 * empty prompt-prefix store, as a fresh audit does: otherwise a cell would prefill for free the
 * prompts the cell before it left stored, and the order would decide its speed.
 *
 * Flat is the goal: tokens/s should not fall as the questions grow. Each size's tokens/s is held
 * to the 16-question cell of its budget (the smallest size where 16 is not swept), per round.
 */
import type { Model } from '../engine';
import { parseDataset } from '../audit/dataset';
import { median } from '../common';
import { UsageError } from '../cli/command';
import { benchQuestionsText, benchSettings, runAuditPath, SpreadTokenLimits, tokensOf, type AuditProfile, type StepBreakdown } from './benchAudit';

/** The size every other size is held to, where it is swept. */
export const REFERENCE_QUESTIONS = 16;

export interface AuditSweepOptions {
  sizes: number[];
  budgets: number[];
  minTokens: number;
  maxTokens: number;
  rounds: number;
  maxBatch: number;
  inFlight: number;
  log(message: string): void;
}

export interface AuditSweepCell {
  questions: number;
  budget: number;
  generations: number;
  generatedTokens: number;
  /** Per round, in round order. */
  seconds: number[];
  tokensPerSecond: number[];
  medianTokensPerSecond: number;
  minTokensPerSecond: number;
  maxTokensPerSecond: number;
  /** The cell this one is held to: same budget, REFERENCE_QUESTIONS or the smallest size. */
  referenceQuestions: number;
  /** Per round: this cell's tokens/s over its reference's in the same round; and their median. */
  ratios: number[];
  medianRatio: number;
  /** Per round, where the time went (the generation queue's own clock) and the engine's steps. */
  profile: AuditProfile[];
  breakdown: StepBreakdown[];
}

export interface AuditSweepFigures {
  sizes: number[];
  budgets: number[];
  tokenLimits: [number, number];
  rounds: number;
  maxBatch: number;
  inFlight: number;
  /** The cells each round ran, in the order it ran them ("questions×budget"). */
  order: string[][];
  /** Sizes ascending within each budget, budgets ascending. */
  cells: AuditSweepCell[];
}

/**
 * "8,16,32" → [8, 16, 32], sorted. Every entry a whole number ≥ 1, none twice; anything else names
 * the flag, the entry and what to write instead.
 */
export function parseSweepList(value: string, flag: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  const out: number[] = [];
  for (const [i, p] of parts.entries()) {
    if (!/^\d+$/.test(p) || Number(p) < 1) throw new UsageError(`${flag}: entry ${i + 1} ('${p}') is not a whole number >= 1; expected a comma-separated list like 8,16,32, got '${value}'`);
    if (out.includes(Number(p))) throw new UsageError(`${flag}: ${Number(p)} appears twice in '${value}'; give each value once`);
    out.push(Number(p));
  }
  return out.sort((a, b) => a - b);
}

/** The reference size of a sweep over `sizes`: REFERENCE_QUESTIONS where swept, else the smallest. */
export function referenceSize(sizes: readonly number[]): number {
  return sizes.includes(REFERENCE_QUESTIONS) ? REFERENCE_QUESTIONS : Math.min(...sizes);
}

/** Round `round`'s order of `n` cells: every cell once, starting at cell `round mod n`. */
export function rotatedOrder(n: number, round: number): number[] {
  return Array.from({ length: n }, (_, i) => (i + round) % n);
}

/** Per round, each cell's tokens/s over its reference's (same budget, same round), and the median. */
export function ratiosToReference(cells: readonly Pick<AuditSweepCell, 'questions' | 'budget' | 'tokensPerSecond'>[], sizes: readonly number[]): { referenceQuestions: number; ratios: number[]; medianRatio: number }[] {
  const ref = referenceSize(sizes);
  return cells.map((c) => {
    const base = cells.find((x) => x.budget === c.budget && x.questions === ref);
    if (!base) throw new Error(`internal: no ${ref}-question cell at budget ${c.budget}`);
    const ratios = c.tokensPerSecond.map((t, r) => t / base.tokensPerSecond[r]);
    return { referenceQuestions: ref, ratios, medianRatio: median(ratios) };
  });
}

const label = (c: { questions: number; budget: number }): string => `${c.questions}×${c.budget}`;

export async function benchAuditSweep(model: Model, o: AuditSweepOptions): Promise<AuditSweepFigures> {
  const largest = Math.max(...o.sizes);
  // One workload: each size runs its first questions.
  const all = parseDataset('bench-questions.jsonl', benchQuestionsText(largest)).questions;
  const generator = new SpreadTokenLimits(model, o.minTokens, o.maxTokens);
  const cells: AuditSweepCell[] = [];
  for (const budget of o.budgets) {
    for (const questions of o.sizes) {
      cells.push({ questions, budget, generations: 0, generatedTokens: 0, seconds: [], tokensPerSecond: [], medianTokensPerSecond: 0, minTokensPerSecond: 0, maxTokensPerSecond: 0, referenceQuestions: 0, ratios: [], medianRatio: 0, profile: [], breakdown: [] });
    }
  }
  const figures: AuditSweepFigures = { sizes: o.sizes, budgets: o.budgets, tokenLimits: [o.minTokens, o.maxTokens], rounds: o.rounds, maxBatch: o.maxBatch, inFlight: o.inFlight, order: [], cells };
  const restore = model.maxBatch;
  try {
    for (let round = 0; round < o.rounds; round++) {
      const order = rotatedOrder(cells.length, round);
      figures.order.push(order.map((i) => label(cells[i])));
      for (const i of order) {
        const cell = cells[i];
        model.forgetPromptPrefixes();
        const run = await runAuditPath(model, generator, all.slice(0, cell.questions), benchSettings(cell.budget, o.maxTokens), 'scheduled', o);
        const work = tokensOf(run.records);
        cell.generations = work.generations;
        cell.generatedTokens = work.tokens;
        cell.seconds[round] = run.seconds;
        cell.tokensPerSecond[round] = work.tokens / run.seconds;
        cell.profile[round] = run.profile;
        cell.breakdown[round] = run.breakdown;
        o.log(`sweep round ${round + 1}/${o.rounds}, ${cell.questions} questions at budget ${cell.budget}: ${work.generations} generations, ${work.tokens} tokens in ${run.seconds.toFixed(1)} s (${cell.tokensPerSecond[round].toFixed(1)} tok/s)`);
      }
    }
  } finally {
    model.maxBatch = restore;
    model.forgetPromptPrefixes();
  }
  const ratios = ratiosToReference(cells, o.sizes);
  cells.forEach((c, i) => {
    c.medianTokensPerSecond = median(c.tokensPerSecond);
    c.minTokensPerSecond = Math.min(...c.tokensPerSecond);
    c.maxTokensPerSecond = Math.max(...c.tokensPerSecond);
    Object.assign(c, ratios[i]);
  });
  return figures;
}

/** Median of one profile figure over a cell's rounds. */
function prof(c: AuditSweepCell, k: keyof AuditProfile): number {
  return median(c.profile.map((p) => p[k] as number));
}

/** Decode rows per second of decode time inside the audit: falls when steps get slower, not emptier. */
function decodeRowsPerSecond(p: AuditProfile): number {
  return p.decodeSeconds > 0 ? (p.meanDecodeBatch * p.decodeSteps) / p.decodeSeconds : 0;
}

/** Where a cell's wall time went, as shares of it (medians over rounds). */
function shares(c: AuditSweepCell): Record<'prefill' | 'decode' | 'choice' | 'between' | 'empty', number> {
  const share = (k: keyof AuditProfile): number => median(c.profile.map((p) => (p.wallSeconds > 0 ? (p[k] as number) / p.wallSeconds : 0)));
  return { prefill: share('prefillSeconds'), decode: share('decodeSeconds'), choice: share('chooseSeconds'), between: share('betweenSeconds'), empty: share('idleSeconds') };
}

/** Below this a size's tokens/s against its reference's counts as not flat. */
const FLAT = 0.9;

/** Columns padded to their widest cell: the first `leftColumns` left-aligned, the rest right-aligned. */
function table(rows: string[][], leftColumns: number[]): string[] {
  const widths = rows[0].map((_, j) => Math.max(...rows.map((r) => r[j].length)));
  return rows.map((r) => r.map((x, j) => (leftColumns.includes(j) ? x.padEnd(widths[j]) : x.padStart(widths[j]))).join('  ').trimEnd());
}

export function auditSweepText(f: AuditSweepFigures): string[] {
  const pct = (x: number): string => `${(100 * x).toFixed(0)}%`;
  const ref = referenceSize(f.sizes);
  const head = ['questions', 'budget', 'generations', 'tokens', 's/round', 'tokens/s median (min–max)', `÷ ${ref}q median (per round)`, 'prefill', 'decode', 'choice', 'between', 'empty', 'decode batch', 'decode rows/s'];
  const rows = f.cells.map((c) => {
    const s = shares(c);
    return [
      String(c.questions),
      String(c.budget),
      String(c.generations),
      String(c.generatedTokens),
      median(c.seconds).toFixed(1),
      `${c.medianTokensPerSecond.toFixed(1)} (${c.minTokensPerSecond.toFixed(1)}–${c.maxTokensPerSecond.toFixed(1)})`,
      `${c.medianRatio.toFixed(2)} (${c.ratios.map((r) => r.toFixed(2)).join(' ')})`,
      pct(s.prefill), pct(s.decode), pct(s.choice), pct(s.between), pct(s.empty),
      `${prof(c, 'meanDecodeBatch').toFixed(1)} of ${f.maxBatch}`,
      median(c.profile.map(decodeRowsPerSecond)).toFixed(1),
    ];
  });
  // Where a size falls below FLAT of its reference: what differs from the reference's run.
  const notFlat = f.cells.filter((c) => c.questions !== c.referenceQuestions && c.medianRatio < FLAT).map((c) => {
    const base = f.cells.find((x) => x.budget === c.budget && x.questions === c.referenceQuestions)!;
    const [a, b] = [shares(c), shares(base)];
    return `  ${c.questions} questions at budget ${c.budget}: ${c.medianRatio.toFixed(2)} of ${base.questions} — decode batch ${prof(c, 'meanDecodeBatch').toFixed(1)} vs ${prof(base, 'meanDecodeBatch').toFixed(1)}, decode rows/s ${median(c.profile.map(decodeRowsPerSecond)).toFixed(1)} vs ${median(base.profile.map(decodeRowsPerSecond)).toFixed(1)}, shares of the wall time prefill ${pct(a.prefill)} vs ${pct(b.prefill)}, token choice ${pct(a.choice)} vs ${pct(b.choice)}, between steps ${pct(a.between)} vs ${pct(b.between)}, queue empty ${pct(a.empty)} vs ${pct(b.empty)}, search-only decode ${prof(c, 'searchOnlySeconds').toFixed(1)} s vs ${prof(base, 'searchOnlySeconds').toFixed(1)} s`;
  });
  return [
    `audit sweep      ${f.sizes.join(', ')} questions × budgets ${f.budgets.join(', ')}: the scheduler only (${f.inFlight} questions open, batch ${f.maxBatch}), limits ${f.tokenLimits[0]}–${f.tokenLimits[1]} tokens; ${f.rounds} interleaved rounds, the cells' order rotating per round`,
    ...table([head, ...rows], [5, 6]),
    `  (shares: median share of each cell's wall time; ratios: a cell's tokens/s over the ${ref}-question cell's of its budget, in the same round; flat is the goal)`,
    ...(notFlat.length > 0 ? [`not flat (below ${FLAT} of ${ref} questions):`, ...notFlat] : [`flat: every size at ${FLAT} or more of the ${ref}-question cell's tokens/s`]),
  ];
}
