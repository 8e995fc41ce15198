/**
 * Synthetic audit runs for the panel tests and benchmark: records in the shape of the run-store
 * contract with a realistic mix of states (realized, reachable by some probes, blind-selectable,
 * repaired by a block, unreached, truncated), seeded so every run of the tests sees the same data.
 * Some question texts carry HTML/script injection strings, which the panel must show as text.
 * DOM-free: bundled for the browser by the harness, and importable from Node.
 */
import type { AuditRecord, ComparedState, CompareSummary, PairedDelta, ProbeAttempt, ProbeResult, RunData, RunSummary } from '../../webview/src/protocol';
import { passAtK } from '../../webview/src/passAtK';
import { wilson } from '../../webview/src/wilson';
import { SeededRandom } from '../support/seededRandom';

export const XSS_IMG = '<img src=x onerror=alert(1)>';
export const XSS_SCRIPT = '</script><script>alert(2)</script>';

export interface SyntheticOptions {
  n: number;
  seed?: number;
  /** Attempts per probe. */
  budget?: number;
  numBlocks?: number;
  probes?: string[];
  /** Every `xssEvery`-th question (and the first) carries the injection strings. */
  xssEvery?: number;
  runId?: string;
  label?: string;
  /** Shifts the realized / reachable rates (a "trained" checkpoint realizes more, reaches less). */
  realizedBias?: number;
  reachBias?: number;
}

const NAMES = ['Natalia', 'Weng', 'Betty', 'Julie', 'James', 'Albert', 'Ken', 'Alexis', 'Tina', 'Mark'];
const THINGS = ['clips', 'apples', 'marbles', 'pages', 'tickets', 'cupcakes', 'stickers', 'books'];

function questionText(rng: SeededRandom, index: number, xss: boolean): { text: string; gold: number } {
  const name = NAMES[rng.int(NAMES.length)];
  const thing = THINGS[rng.int(THINGS.length)];
  const a = 2 + rng.int(90);
  const b = 2 + rng.int(40);
  const c = 1 + rng.int(9);
  const gold = a + b * c;
  let text =
    `${name} sold ${a} ${thing} in April, and then she sold ${b} ${thing} a day for ${c} days in May. ` +
    `How many ${thing} did ${name} sell altogether in April and May? (question ${index})`;
  if (xss) text = `${XSS_IMG} ${text} ${XSS_SCRIPT} & "quotes" 'too'`;
  return { text, gold };
}

function solution(answer: number, truncated: boolean): string {
  const steps = `First compute the May sales, then add April. The total is ${answer}.`;
  return truncated ? `${steps} Let me double-check the multiplication step by step: ${'and again '.repeat(12)}` : `${steps}\n#### ${answer}`;
}

/** A random route: identity with 1–4 single-block skips or repeats (a block at most twice). */
function randomRoute(rng: SeededRandom, numBlocks: number): number[] {
  const route = Array.from({ length: numBlocks }, (_, i) => i);
  const edits = 1 + rng.int(4);
  for (let e = 0; e < edits; e++) {
    const block = rng.int(numBlocks);
    const at = route.indexOf(block);
    if (at < 0) continue;
    if (rng.uniform() < 0.5 && route.length > Math.round((2 * numBlocks) / 3)) route.splice(at, 1);
    else if (route.filter((b) => b === block).length < 2) route.splice(at + 1, 0, block);
  }
  return route;
}

function wrong(rng: SeededRandom, gold: number): number {
  return gold + (rng.int(2) === 0 ? -1 : 1) * (1 + rng.int(30));
}

export function makeSyntheticRun(options: SyntheticOptions): RunData {
  const n = options.n;
  const rng = new SeededRandom(options.seed ?? 7);
  const budget = options.budget ?? 8;
  const numBlocks = options.numBlocks ?? 24;
  const probes = options.probes ?? ['sample', 'routes', 'search'];
  const xssEvery = options.xssEvery ?? 50;
  const identified = Math.floor(numBlocks / 2) + 1;
  const records: AuditRecord[] = [];

  for (let i = 0; i < n; i++) {
    const xss = i === 0 || (xssEvery > 0 && i % xssEvery === 0);
    const { text, gold } = questionText(rng, i, xss);
    const difficulty = rng.uniform();
    const realized = difficulty < 0.42 + (options.realizedBias ?? 0);
    const truncated = !realized && rng.uniform() < 0.08;
    const deployedAnswer = realized ? gold : wrong(rng, gold);
    const record: AuditRecord = {
      id: `q-${String(i).padStart(5, '0')}`,
      line: i + 1,
      gold: String(gold),
      question: text,
      prompt: `<|im_start|>user\n${text}<|im_end|>\n<|im_start|>assistant\n`,
      realized: {
        output: solution(deployedAnswer, truncated),
        answer: truncated ? (rng.uniform() < 0.5 ? null : String(wrong(rng, gold))) : String(deployedAnswer),
        correct: realized,
        truncated,
        rule: truncated ? 'flexible' : 'strict',
      },
      probes: {},
      reachable: {},
      blind: {},
    };
    if (!realized && record.realized.answer !== null && truncated) record.realized.correct = false;

    const reachable = difficulty < 0.78 + (options.reachBias ?? 0);
    for (const probe of probes) {
      const strength = probe === 'sample' ? 0.3 : probe === 'routes' ? 0.36 : 0.33;
      const p = realized ? 0.75 : reachable ? strength * (0.3 + rng.uniform()) : 0;
      const attempts: ProbeAttempt[] = [];
      for (let a = 0; a < budget; a++) {
        const correct = rng.uniform() < p;
        const answer = correct ? gold : wrong(rng, gold);
        const attempt: ProbeAttempt = {
          output: solution(answer, false),
          answer: String(answer),
          correct,
          logprob: -(0.05 + rng.uniform() * (correct ? 0.6 : 1.2)),
        };
        if (probe === 'sample') attempt.seed = 1000 * i + a;
        else attempt.route = randomRoute(rng, numBlocks);
        attempts.push(attempt);
      }
      // A reachable question is reached by at least one probe: force one hit on the strongest.
      if (reachable && !realized && probe === 'routes' && !attempts.some((x) => x.correct)) {
        const a = attempts[rng.int(budget)];
        a.correct = true;
        a.answer = String(gold);
        a.output = solution(gold, false);
      }
      const result: ProbeResult = { budget, attempts, correct: attempts.map((x) => x.correct) };
      record.probes![probe] = result;
      record.reachable![probe] = attempts.some((x) => x.correct);
      const majority = realized ? rng.uniform() < 0.93 : record.reachable![probe] && rng.uniform() < 0.12;
      const confidence = realized ? rng.uniform() < 0.9 : record.reachable![probe] && rng.uniform() < 0.08;
      record.blind![probe] = {
        majority: { answer: String(majority ? gold : wrong(rng, gold)), correct: majority },
        confidence: { answer: String(confidence ? gold : wrong(rng, gold)), correct: confidence },
      };
    }

    const inFailureSet = !realized && Object.values(record.reachable!).some(Boolean);
    if (inFailureSet || realized) {
      const map: Record<string, boolean> = {};
      for (let b = 0; b < numBlocks; b++) {
        if (inFailureSet) map[String(b)] = rng.uniform() < (b === identified ? 0.7 : b === identified + 3 ? 0.3 : 0.04);
        else map[String(b)] = !(rng.uniform() < (b === 0 ? 0.25 : b === identified ? 0.05 : 0.015));
      }
      record.repair = { inFailureSet, correctBySilencedBlock: map };
    }
    records.push(record);
  }

  return {
    runId: options.runId ?? `2026-12-02T11-00-00-synthetic-${n}`,
    label: options.label ?? `synthetic ${n}`,
    manifest: {
      name: options.label ?? `synthetic ${n}`,
      model: { path: 'media/demo/model-base', hash: 'sha256:0000', numBlocks, architecture: 'Qwen2ForCausalLM' },
      dataset: { path: 'media/demo/arith-test.jsonl', hash: 'sha256:1111', format: 'gsm8k', size: n },
      probes: probes.map((name) => ({ name, budget })),
      seed: options.seed ?? 7,
    },
    summary: summarize(records, probes, numBlocks, identified),
    records,
  };
}

/** summary.json for synthetic records, computed as the contract describes (enough for the panel). */
export function summarize(records: readonly AuditRecord[], probes: readonly string[], numBlocks: number, identified: number): RunSummary {
  const n = records.length;
  const rate = (k: number, m: number) => {
    const w = wilson(k, m);
    return { rate: w.rate, ci: [w.low, w.high] as [number, number], n: m };
  };
  const summary: RunSummary = {
    n,
    realized: rate(records.filter((r) => r.realized.correct).length, n),
    reachable: {},
    passAtK: {},
    blind: {},
    budget: {},
  };
  for (const probe of probes) {
    summary.reachable![probe] = rate(records.filter((r) => r.reachable?.[probe]).length, n);
    const curve: Record<string, number> = {};
    const budget = records[0]?.probes?.[probe]?.budget ?? 0;
    for (let k = 1; k <= budget; k++) {
      let sum = 0;
      for (const r of records) {
        const correct = r.probes?.[probe]?.correct ?? [];
        sum += passAtK(correct.length, correct.filter(Boolean).length, k);
      }
      curve[String(k)] = sum / n;
    }
    summary.passAtK![probe] = curve;
    summary.blind![probe] = {};
    for (const selector of ['majority', 'confidence']) summary.blind![probe][selector] = rate(records.filter((r) => r.blind?.[probe]?.[selector]?.correct).length, n);
    summary.budget![probe] = { generations: n * budget, tokens: n * budget * 60, blockApplications: n * budget * 60 * numBlocks };
  }
  const failure = records.filter((r) => r.repair?.inFailureSet);
  const heldOut = failure.filter((_, i) => i % 2 === 1);
  const repaired = heldOut.filter((r) => r.repair?.correctBySilencedBlock[String(identified)]).length;
  const realizedWithScan = records.filter((r) => r.realized.correct && r.repair);
  const damaged = realizedWithScan.filter((r) => r.repair?.correctBySilencedBlock[String(identified)] === false).length;
  const w = wilson(repaired, heldOut.length);
  summary.repair = {
    failureSetSize: failure.length,
    identifiedBlock: identified,
    repairRate: w.rate,
    ci: [w.low, w.high],
    n: heldOut.length,
    damageRate: realizedWithScan.length === 0 ? 0 : damaged / realizedWithScan.length,
  };
  return summary;
}

function comparedState(r: AuditRecord): ComparedState {
  if (r.realized.correct) return 'realized';
  return Object.values(r.reachable ?? {}).some(Boolean) ? 'reachable' : 'unreached';
}

/**
 * Paired yes/no measure over both runs. The engine's interval is a seeded paired bootstrap; test
 * data only needs a plausible one, so this uses the normal interval of the mean paired difference.
 * The McNemar p is the exact two-sided binomial test on the discordant pairs, as the engine does.
 */
function pairedDelta(base: boolean[], tuned: boolean[]): PairedDelta {
  const n = base.length;
  const d = base.map((b, i) => Number(tuned[i]) - Number(b));
  const mean = (v: number[]) => (v.length === 0 ? 0 : v.reduce((s, x) => s + x, 0) / v.length);
  const delta = mean(d);
  const sd = Math.sqrt(mean(d.map((x) => (x - delta) ** 2)));
  const half = n === 0 ? 0 : (1.96 * sd) / Math.sqrt(n);
  const lost = base.filter((b, i) => b && !tuned[i]).length;
  const gained = base.filter((b, i) => !b && tuned[i]).length;
  const m = lost + gained;
  let term = 0.5 ** m;
  let tail = 0;
  for (let i = 0; i <= Math.min(lost, gained); i++) {
    tail += term;
    term *= (m - i) / (i + 1);
  }
  return { base: mean(base.map(Number)), tuned: mean(tuned.map(Number)), delta, ci: { lo: delta - half, hi: delta + half }, mcnemarP: Math.min(1, 2 * tail), lost, gained, n };
}

/** The comparison of two synthetic runs of the same questions, in the shape `reach-audit compare` writes. */
export function makeSyntheticComparison(base: RunData, tuned: RunData): CompareSummary {
  const tunedById = new Map(tuned.records.map((r) => [String(r.id), r]));
  const pairs: [AuditRecord, AuditRecord][] = [];
  for (const b of base.records) {
    const t = tunedById.get(String(b.id));
    if (t) pairs.push([b, t]);
  }
  const anyReachable = (r: AuditRecord) => Object.values(r.reachable ?? {}).some(Boolean);
  const states: ComparedState[] = ['realized', 'reachable', 'unreached'];
  const transitions = Object.fromEntries(states.map((s) => [s, Object.fromEntries(states.map((t) => [t, [] as string[]]))])) as CompareSummary['transitions'];
  const already: string[] = [];
  const fresh: string[] = [];
  for (const [b, t] of pairs) {
    transitions[comparedState(b)][comparedState(t)].push(String(b.id));
    if (!b.realized.correct && t.realized.correct) (anyReachable(b) ? already : fresh).push(String(b.id));
  }
  const probes = Object.keys(pairs[0]?.[0].reachable ?? {});
  const newly = already.length + fresh.length;
  const rate = (ids: string[]) => {
    const w = wilson(ids.length, newly);
    return { n: newly, successes: ids.length, rate: newly === 0 ? 0 : ids.length / newly, ci: { lo: w.low, hi: w.high }, ids };
  };
  const baseIds = new Set(base.records.map((r) => String(r.id)));
  return {
    n: pairs.length,
    unmatched: { baseOnly: base.records.filter((r) => !tunedById.has(String(r.id))).map((r) => String(r.id)), tunedOnly: tuned.records.filter((r) => !baseIds.has(String(r.id))).map((r) => String(r.id)) },
    realized: pairedDelta(pairs.map(([b]) => b.realized.correct), pairs.map(([, t]) => t.realized.correct)),
    reachableCeiling: pairedDelta(pairs.map(([b]) => anyReachable(b)), pairs.map(([, t]) => anyReachable(t))),
    reachable: Object.fromEntries(probes.map((p) => [p, pairedDelta(pairs.map(([b]) => b.reachable?.[p] === true), pairs.map(([, t]) => t.reachable?.[p] === true))])),
    transitions,
    newlyRealized: { n: newly, alreadyReachable: rate(already), newlyReachable: rate(fresh) },
  };
}
