/**
 * Synthetic audit runs for the panel tests and benchmark, at sizes a real audit on this machine
 * cannot produce (10,000 questions): records typed by the run-format contract (and checked against
 * its schema in test/webview/model.test.ts) with a realistic mix of states (realized, reachable by
 * some probes, blind-selectable, repaired by a block, unreached, truncated), seeded so every run of
 * the tests sees the same data; summary.json is the audit's own summarize() of those records.
 * Some question texts and model outputs carry HTML/script injection strings, which the panel must
 * show as text. DOM-free: bundled for the browser by the harness, and importable from Node.
 */
import type { Attempt, Budget, ProbeName, ProbeResult, QuestionRecord, RunData, RunManifest } from '../../src/contract';
import { summarize } from '../../src/audit/results/summary';
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

function solution(answer: number, truncated: boolean, xss = false): string {
  const steps = `${xss ? `${XSS_IMG} ` : ''}First compute the May sales, then add April. The total is ${answer}.`;
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

function cost(tokens: number, routeLength: number): Budget {
  return { generations: 1, tokens, blockApplications: (tokens + 40) * routeLength };
}

export function makeSyntheticRun(options: SyntheticOptions): RunData {
  const n = options.n;
  const rng = new SeededRandom(options.seed ?? 7);
  const budget = options.budget ?? 8;
  const numBlocks = options.numBlocks ?? 24;
  const probes = options.probes ?? ['sample', 'routes', 'search'];
  const budgetOf = (): Budget => ({ generations: 0, tokens: 0, blockApplications: 0 });
  const xssEvery = options.xssEvery ?? 50;
  const identified = Math.floor(numBlocks / 2) + 1;
  const records: QuestionRecord[] = [];

  for (let i = 0; i < n; i++) {
    const xss = i === 0 || (xssEvery > 0 && i % xssEvery === 0);
    const { text, gold } = questionText(rng, i, xss);
    const difficulty = rng.uniform();
    const realized = difficulty < 0.42 + (options.realizedBias ?? 0);
    const truncated = !realized && rng.uniform() < 0.08;
    const deployedAnswer = realized ? gold : wrong(rng, gold);
    const tokens = truncated ? 64 : 20 + rng.int(30);
    const record: QuestionRecord = {
      id: `q-${String(i).padStart(5, '0')}`,
      line: i + 1,
      gold: String(gold),
      question: text,
      realized: {
        output: solution(deployedAnswer, truncated, xss),
        answer: truncated ? (rng.uniform() < 0.5 ? null : String(wrong(rng, gold))) : String(deployedAnswer),
        correct: realized,
        truncated,
        rule: truncated ? 'flexible' : 'strict',
        logprob: -(0.05 + rng.uniform()),
        tokens,
        cost: cost(tokens, numBlocks),
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
      const attempts: Attempt[] = [];
      for (let a = 0; a < budget; a++) {
        const correct = rng.uniform() < p;
        const answer = correct ? gold : wrong(rng, gold);
        const attempt: Attempt = {
          output: solution(answer, false, xss),
          answer: String(answer),
          correct,
          truncated: false,
          rule: 'strict',
          logprob: -(0.05 + rng.uniform() * (correct ? 0.6 : 1.2)),
          tokens: 20 + rng.int(30),
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
        a.output = solution(gold, false, xss);
      }
      const spent = attempts.reduce((b, x) => {
        const c = cost(x.tokens, x.route?.length ?? numBlocks);
        return { generations: b.generations + c.generations, tokens: b.tokens + c.tokens, blockApplications: b.blockApplications + c.blockApplications };
      }, budgetOf());
      const result: ProbeResult = { budget, attempts, correct: attempts.map((x) => x.correct), cost: spent };
      record.probes[probe] = result;
      record.reachable[probe] = attempts.some((x) => x.correct);
      const majority = realized ? rng.uniform() < 0.93 : record.reachable[probe] && rng.uniform() < 0.12;
      const confidence = realized ? rng.uniform() < 0.9 : record.reachable[probe] && rng.uniform() < 0.08;
      const pick = (correct: boolean) => ({ answer: String(correct ? gold : wrong(rng, gold)), correct, attempt: rng.int(budget) });
      record.blind[probe] = { majority: pick(majority), confidence: pick(confidence) };
    }

    const inFailureSet = !realized && Object.values(record.reachable).some(Boolean);
    const map: Record<string, boolean> = {};
    const answers: Record<string, string | null> = {};
    if (inFailureSet || realized) {
      for (let b = 0; b < numBlocks; b++) {
        if (inFailureSet) map[String(b)] = rng.uniform() < (b === identified ? 0.7 : b === identified + 3 ? 0.3 : 0.04);
        else map[String(b)] = !(rng.uniform() < (b === 0 ? 0.25 : b === identified ? 0.05 : 0.015));
        answers[String(b)] = String(map[String(b)] ? gold : wrong(rng, gold));
      }
    }
    const scanned = inFailureSet || realized ? numBlocks : 0;
    record.repair = {
      inFailureSet,
      realized,
      correctBySilencedBlock: map,
      answerBySilencedBlock: answers,
      splitKey: rng.uniform(),
      cost: { generations: scanned, tokens: scanned * 30, blockApplications: scanned * 70 * numBlocks },
    };
    records.push(record);
  }

  const name = options.label ?? `synthetic ${n}`;
  const manifest: RunManifest = {
    name,
    createdAt: '2026-12-02T11:00:00.000Z',
    tool: { name: 'reach-audit', version: '0.1.0' },
    engine: { version: 'synthetic' },
    model: { path: 'media/demo/base', contentHash: 'synthetic-model', numBlocks },
    dataset: { path: 'media/demo/data/arith-test.jsonl', contentHash: 'synthetic-data', format: 'gsm8k', schema: 'gsm8k', questions: n },
    deployment: { prompt: 'chat', fewShot: [], temperature: 0, topP: 1, maxNewTokens: 64, stop: [] },
    probes: probes.map((p) => ({ name: p as ProbeName, budget })),
    selectors: ['majority', 'confidence'],
    repair: { enabled: true, referenceProbes: probes },
    globalRoutes: { count: 0, routes: [] },
    seeds: { run: options.seed ?? 7 },
    routeSpace: { maxEdits: 4 },
    search: { c: 1.8, lambda: 0, exploration: 0.1 },
    grading: { correctBy: 'stated', truncated: 'strict' },
    selection: { limit: null, ids: null },
  };
  return { runId: options.runId ?? `2026-12-02T11-00-00-synthetic-${n}`, label: name, manifest, summary: summarize(records), records };
}

