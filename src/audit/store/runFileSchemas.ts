/**
 * Runtime schemas of the run files (records.jsonl lines, summary.json, manifest.json,
 * comparison.json, trajectory.json), written with valibot against the contract's types. The contract stays
 * import-free for the webview bundle, so the types are written there by hand and checked here at
 * compile time: each schema's output type must equal its contract type exactly (SameType below), so
 * a field added to one and not the other fails `tsc`.
 *
 * Unknown keys pass (other tools may add keys; nothing here reads them, and a file read and written
 * again keeps them).
 */
import * as v from 'valibot';
import type {
  Attempt,
  BlindChoice,
  Budget,
  Comparison,
  Deployment,
  FlowKey,
  GlobalRoutesResult,
  GradedOutput,
  Interval,
  PairedDelta,
  ProbeResult,
  QuestionRecord,
  Rate,
  RepairResult,
  RepairSummary,
  RunManifest,
  RunSummary,
  StoredComparison,
  StoredTrajectory,
  TrajectoryFlow,
  TrajectoryPoint,
} from '../../contract';
import { PROBE_NAMES, QUESTION_STATES, ROUTER_FEATURE_KINDS, SELECTOR_NAMES } from '../../contract';

const NON_NEGATIVE_INTEGER = 'expected a non-negative integer';
const FRACTION = 'expected a number in [0, 1]';

const nonNegativeInteger = v.pipe(v.number(NON_NEGATIVE_INTEGER), v.integer(NON_NEGATIVE_INTEGER), v.minValue(0, NON_NEGATIVE_INTEGER));
const positiveInteger = v.pipe(v.number('expected a positive integer'), v.integer('expected a positive integer'), v.minValue(1, 'expected a positive integer'));
const fraction = v.pipe(v.number(FRACTION), v.minValue(0, FRACTION), v.maxValue(1, FRACTION));
const finite = v.pipe(v.number('expected a finite number'), v.finite('expected a finite number'));
const nonNegativeNumber = v.pipe(v.number('expected a number >= 0'), v.finite('expected a number >= 0'), v.minValue(0, 'expected a number >= 0'));
const text = v.string('expected a string');
const flag = v.boolean('expected true or false');
const texts = v.array(text, 'expected an array of strings');
const blockIndices = v.array(nonNegativeInteger, 'expected an array of block indices');
const map = <T extends v.GenericSchema>(value: T) => v.record(text, value, 'expected an object');
const object = <T extends v.ObjectEntries>(entries: T) => v.object(entries, 'expected an object');

/** A 95% interval of a rate: 0 ≤ lo ≤ hi ≤ 1. */
const rateInterval = v.pipe(
  object({ lo: fraction, hi: fraction }),
  v.check((ci) => ci.lo <= ci.hi, 'expected lo ≤ hi'),
);
/** An interval of a difference of rates: -1 ≤ lo ≤ hi ≤ 1. */
const DIFFERENCE = 'expected a number in [-1, 1]';
const difference = v.pipe(v.number(DIFFERENCE), v.minValue(-1, DIFFERENCE), v.maxValue(1, DIFFERENCE));
const differenceInterval = v.pipe(
  object({ lo: difference, hi: difference }),
  v.check((ci) => ci.lo <= ci.hi, 'expected lo ≤ hi'),
);

const differenceMethod = v.picklist(['newcombe-score', 'bootstrap'], "expected 'newcombe-score' or 'bootstrap'");
const pairedDecision = object({
  verdict: v.picklist(['better', 'worse', 'equivalent', 'inconclusive'], "expected 'better', 'worse', 'equivalent' or 'inconclusive'"),
  margin: v.pipe(v.number('expected a margin in (0, 1)'), v.gtValue(0, 'expected a margin in (0, 1)'), v.ltValue(1, 'expected a margin in (0, 1)')),
  questionsNeeded: v.nullable(nonNegativeInteger),
});

const rateEntries = { n: nonNegativeInteger, successes: nonNegativeInteger, rate: fraction, ci: rateInterval };
const rate = v.pipe(object(rateEntries), v.check((r) => r.successes <= r.n, 'expected successes ≤ n'));

const budget = object({ generations: nonNegativeInteger, tokens: nonNegativeInteger, blockApplications: nonNegativeInteger });

const answerView = object({ answer: v.nullable(text), correct: flag });
const gradedEntries = {
  output: text,
  answer: v.nullable(text),
  correct: flag,
  truncated: flag,
  thought: v.optional(v.picklist(['finished', 'unfinished'], "expected 'finished' or 'unfinished'")),
  rule: text,
  match: v.optional(object({ rule: text, note: v.optional(text) })),
  strict: v.optional(answerView),
  flexible: v.optional(answerView),
  logprob: v.nullable(finite),
  tokens: nonNegativeInteger,
};
const attempt = object({
  ...gradedEntries,
  route: v.optional(blockIndices),
  seed: v.optional(nonNegativeInteger),
  perturbation: v.optional(
    object({
      afterBlock: nonNegativeInteger,
      positions: v.picklist(['all', 'prompt', 'continuation'], "expected 'all', 'prompt' or 'continuation'"),
      scale: v.pipe(finite, v.minValue(0, 'expected a share ≥ 0')),
      seed: nonNegativeInteger,
    }),
  ),
  goldLogprob: v.optional(v.pipe(finite, v.maxValue(0, 'expected a log-probability ≤ 0'))),
});

const probeResult = object({
  budget: positiveInteger,
  attempts: v.array(attempt, 'expected an array of attempts'),
  correct: v.array(flag, 'expected an array of true/false'),
  cost: budget,
  untilReached: v.optional(v.literal(true, 'expected true')),
});
const blindChoice = object({ answer: v.nullable(text), correct: flag, attempt: v.nullable(nonNegativeInteger), dropped: v.optional(nonNegativeInteger) });
const globalRoutesResult = object({ splitKey: finite, attempts: v.array(attempt, 'expected an array of attempts'), cost: budget });
const routerFeatures = object({ folds: positiveInteger, fold: nonNegativeInteger, features: v.array(nonNegativeInteger, 'expected an array of whole counts'), state: v.optional(v.array(finite, 'expected an array of numbers')), reads: v.optional(v.picklist(['pooled-state', 'both'], "expected 'pooled-state' or 'both'")) });
const skipReason = v.variant(
  'reason',
  [
    object({
      reason: v.literal('context'),
      message: text,
      promptTokens: nonNegativeInteger,
      maxNewTokens: nonNegativeInteger,
      contextLimit: nonNegativeInteger,
    }),
    object({ reason: v.literal('exemplar'), message: text }),
  ],
  "expected a reason 'context' or 'exemplar'",
);
const repairResult = object({
  inFailureSet: flag,
  realized: flag,
  correctBySilencedBlock: map(flag),
  answerBySilencedBlock: map(v.nullable(text)),
  truncatedBySilencedBlock: v.optional(map(flag)),
  unfinishedThoughtBySilencedBlock: v.optional(map(flag)),
  splitKey: finite,
  cost: budget,
  scannedAs: v.optional(object({ inFailureSet: flag, realized: flag })),
});

const depthMark = v.picklist(['0', '1/4', '1/2', '3/4', 'last-line'], "expected '0', '1/4', '1/2', '3/4' or 'last-line'");
const depthResult = object({
  budget: positiveInteger,
  outputTokens: nonNegativeInteger,
  points: v.array(
    object({
      at: depthMark,
      tokens: nonNegativeInteger,
      chars: v.optional(nonNegativeInteger),
      correct: v.array(flag, 'expected an array of true/false'),
      answers: v.array(v.nullable(text), 'expected an array of answers'),
      reached: flag,
    }),
    'expected an array of depth points',
  ),
  deepestReached: v.nullable(nonNegativeInteger),
  noReturn: v.nullable(object({ point: nonNegativeInteger, before: v.string('expected a string'), after: v.string('expected a string') })),
  lostIn: v.union([v.literal('start'), v.literal(1), v.literal(2), v.literal(3), v.literal(4), v.literal('too-short')], "expected 'start', a quarter 1-4 or 'too-short'"),
  cost: budget,
});

const medianWithInterval = object({ median: finite, n: positiveInteger, ci: v.nullable(object({ lo: finite, hi: finite })) });
const foreclosureResult = object({
  test: object({ samples: positiveInteger, threshold: fraction, error: fraction, look: positiveInteger }),
  outcome: v.picklist(['window', 'undecided', 'no-bracket'], "expected 'window', 'undecided' or 'no-bracket'"),
  bracket: v.nullable(object({ from: nonNegativeInteger, to: nonNegativeInteger })),
  window: v.nullable(object({ from: nonNegativeInteger, to: nonNegativeInteger, chars: v.tuple([nonNegativeInteger, nonNegativeInteger], 'expected two character positions') })),
  prefixes: v.array(
    object({ tokens: nonNegativeInteger, samples: nonNegativeInteger, successes: nonNegativeInteger, decision: v.picklist(['reaches', 'not', 'undecided'], "expected 'reaches', 'not' or 'undecided'") }),
    'expected an array of foreclosure prefixes',
  ),
  cost: budget,
});

/** The token record keeps at most this many alternatives per token (the engine's bound). */
const MOST_RECORDED_ALTERNATIVES = 8;
const logprob = v.pipe(v.number('expected a log-probability'), v.maxValue(0, 'expected a log-probability (at most 0)'));
const deployedTokens = object({
  k: v.pipe(positiveInteger, v.maxValue(MOST_RECORDED_ALTERNATIVES, `expected at most ${MOST_RECORDED_ALTERNATIVES} alternatives`)),
  steps: v.array(
    object({
      token: nonNegativeInteger,
      text,
      entropy: v.pipe(finite, v.minValue(0, 'expected an entropy ≥ 0')),
      top: v.pipe(
        v.array(v.tuple([nonNegativeInteger, logprob], 'expected [token id, log-probability]'), 'expected an array of alternatives'),
        v.maxLength(MOST_RECORDED_ALTERNATIVES, `expected at most ${MOST_RECORDED_ALTERNATIVES} alternatives`),
      ),
    }),
    'expected an array of token steps',
  ),
});
const forkBranch = object({ correct: flag, answer: v.nullable(text), truncated: flag, continuation: text, tokens: nonNegativeInteger });
const forkToken = object({ token: nonNegativeInteger, text, logprob });
const forkResult = object({
  budget: positiveInteger,
  positions: positiveInteger,
  alternatives: positiveInteger,
  eligible: nonNegativeInteger,
  forks: v.array(
    object({
      arms: v.array(v.picklist(['entropy', 'random'], "expected 'entropy' or 'random'"), 'expected an array of arms'),
      position: nonNegativeInteger,
      entropy: v.pipe(finite, v.minValue(0, 'expected an entropy ≥ 0')),
      deployed: forkToken,
      alternative: forkToken,
      greedy: forkBranch,
      sample: forkBranch,
      saves: flag,
    }),
    'expected an array of forks',
  ),
  saved: flag,
  savedBy: object({ entropy: flag, random: flag }),
  earliest: v.nullable(nonNegativeInteger),
  cost: budget,
});

export const questionRecordSchema = object({
  id: text,
  line: positiveInteger,
  place: v.optional(object({ file: text, row: nonNegativeInteger })),
  gold: text,
  question: text,
  options: v.optional(positiveInteger),
  skipped: v.optional(skipReason),
  promptTruncated: v.optional(object({ fromTokens: nonNegativeInteger, toTokens: nonNegativeInteger })),
  realized: object({ ...gradedEntries, cost: budget }),
  probes: map(probeResult),
  reachable: map(flag),
  blind: map(map(blindChoice)),
  globalRoutes: v.optional(globalRoutesResult),
  routerFeatures: v.optional(routerFeatures),
  repair: v.optional(repairResult),
  harness: v.optional(
    object({
      prompt: v.string('expected a string'),
      readings: map(object({ extracted: v.nullable(v.string('expected a string')), correct: v.nullable(flag), scores: map(finite) })),
    }),
  ),
  depth: v.optional(depthResult),
  foreclosure: v.optional(foreclosureResult),
  deployedTokens: v.optional(deployedTokens),
  fork: v.optional(forkResult),
  searchSweep: v.optional(
    v.array(
      object({
        c: finite,
        reached: flag,
        evaluated: nonNegativeInteger,
        reused: nonNegativeInteger,
        cost: object({ generations: nonNegativeInteger, blockApplications: nonNegativeInteger }),
      }),
      'expected an array of sweep points',
    ),
  ),
});

const pairedDelta = object({
  base: fraction,
  tuned: fraction,
  delta: difference,
  ci: differenceInterval,
  mcnemarP: fraction,
  lost: nonNegativeInteger,
  gained: nonNegativeInteger,
  n: nonNegativeInteger,
  ciMethod: v.optional(differenceMethod),
  decision: v.optional(pairedDecision),
});
const repairNull = object({
  n: nonNegativeInteger,
  randomBlock: object({ rate: fraction, lo: v.nullable(fraction), hi: v.nullable(fraction) }),
  medianBlock: fraction,
  difference: object({ estimate: finite, lo: v.nullable(finite), hi: v.nullable(finite) }),
  pValue: fraction,
  byTruncation: object({ truncated: rate, notTruncated: rate }),
  netEffect: pairedDelta,
});
const blockRepair = object({ block: nonNegativeInteger, repair: rate, damage: rate, selectionRepair: rate });
const repairSummary = object({
  failureSetSize: nonNegativeInteger,
  failureSet: texts,
  identifiedBlock: v.nullable(nonNegativeInteger),
  repairRate: v.nullable(fraction),
  ci: v.nullable(rateInterval),
  n: nonNegativeInteger,
  repaired: nonNegativeInteger,
  selectionSize: nonNegativeInteger,
  damageRate: v.nullable(fraction),
  damageCi: v.nullable(rateInterval),
  damageN: nonNegativeInteger,
  byBlock: v.array(blockRepair, 'expected an array'),
  null: v.optional(repairNull),
  matrix: v.array(object({ id: text, inFailureSet: flag, correct: v.array(flag, 'expected an array of true/false') }), 'expected an array'),
  stale: v.optional(object({ failureSetSize: nonNegativeInteger, joined: nonNegativeInteger, left: nonNegativeInteger })),
});

const globalRouteSummary = object({
  poolSize: nonNegativeInteger,
  index: v.nullable(nonNegativeInteger),
  route: v.nullable(blockIndices),
  selection: object({ n: nonNegativeInteger, accuracy: rate }),
  heldOut: object({ n: nonNegativeInteger, accuracy: rate, realized: rate, reachable: map(rate) }),
});

const span = object({ min: finite, max: finite });
/** An estimate with a percentile-bootstrap or mapped interval (not bounded to [0, 1]). */
const estimateInterval = object({ estimate: finite, lo: finite, hi: finite });
const chanceLevel = object({
  n: nonNegativeInteger,
  observed: rate,
  level: fraction,
  expected: v.pipe(v.number('expected a number ≥ 0'), v.minValue(0, 'expected a number ≥ 0')),
  options: span,
  attempts: span,
  beyondChance: v.nullable(estimateInterval),
  overChance: v.optional(estimateInterval),
  pValue: fraction,
  aboveChance: flag,
});
const probeExhaustion = object({
  questions: nonNegativeInteger,
  examples: v.array(object({ id: text, evaluated: nonNegativeInteger, budget: nonNegativeInteger }), 'expected an array'),
});
const probeCountEntries = {
  n: nonNegativeInteger,
  onlyA: nonNegativeInteger,
  onlyB: nonNegativeInteger,
  both: nonNegativeInteger,
  neither: nonNegativeInteger,
  mcnemarP: fraction,
};
const probePairingEntries = {
  ...probeCountEntries,
  difference: object({ estimate: finite, lo: finite, hi: finite, method: differenceMethod }),
  decision: pairedDecision,
};
const probeComparison = object({
  a: text,
  b: text,
  budget: object({ a: nonNegativeInteger, b: nonNegativeInteger }),
  match: v.picklist(['matched', 'unmatched'], "expected 'matched' or 'unmatched'"),
  cost: object({
    a: budget,
    b: budget,
    ratio: object({ generations: v.nullable(finite), tokens: v.nullable(finite), blockApplications: v.nullable(finite) }),
  }),
  ...probeCountEntries,
  difference: v.nullable(object({ estimate: finite, lo: finite, hi: finite, method: v.optional(differenceMethod) })),
  decision: v.optional(pairedDecision),
  gainSet: v.optional(object(probePairingEntries)),
  gainSetAtMatchedBlockApplications: v.optional(object({ ...probePairingEntries, spent: object({ a: finite, b: finite }) })),
  exhausted: object({ a: probeExhaustion, b: probeExhaustion }),
});
const blindRetention = object({
  n: nonNegativeInteger,
  blind: rate,
  realized: rate,
  reachable: rate,
  retained: v.nullable(finite),
  ci: v.nullable(object({ lo: finite, hi: finite })),
  undefinedResamples: nonNegativeInteger,
  recovered: v.optional(object({ blind: rate, reachable: rate })),
  lost: v.optional(rate),
});
const learnedRouteSummary = object({
  folds: positiveInteger,
  model: text,
  reads: v.optional(v.picklist(['pooled-state', 'both'], "expected 'pooled-state' or 'both'")),
  poolSize: nonNegativeInteger,
  n: nonNegativeInteger,
  foldSizes: v.array(nonNegativeInteger, 'expected an array of counts'),
  accuracy: object({ learned: rate, global: rate, shuffled: rate }),
  retention: v.optional(object({ learned: blindRetention, global: blindRetention, shuffled: blindRetention })),
  versusGlobal: object({ gainSet: pairedDelta, all: pairedDelta }),
  shuffledVersusGlobal: object({ gainSet: pairedDelta }),
  choices: map(nonNegativeInteger),
});
const truncationCount = v.pipe(
  object({ truncated: nonNegativeInteger, outputs: nonNegativeInteger }),
  v.check((t) => t.truncated <= t.outputs, 'expected truncated ≤ outputs'),
);
const thoughtCount = v.pipe(
  object({ unfinished: nonNegativeInteger, outputs: nonNegativeInteger }),
  v.check((t) => t.unfinished <= t.outputs, 'expected unfinished ≤ outputs'),
);
const readingSummary = object({ realized: rate, reachable: map(rate) });

const disagreements = v.array(object({ id: text, harness: v.nullable(v.string('expected a string')), ours: v.nullable(v.string('expected a string')) }), 'expected an array');

export const runSummarySchema = object({
  n: nonNegativeInteger,
  interfaceFailures: v.optional(map(object({ n: nonNegativeInteger, missedRate: rate, reverseRate: rate, missed: disagreements, reverse: disagreements }))),
  realized: rate,
  reachable: map(rate),
  reachableAny: rate,
  realizedNotReached: v.optional(nonNegativeInteger),
  reachableAnyBudget: object({ attempts: nonNegativeInteger, byProbe: map(nonNegativeInteger) }),
  reachableNotRealized: map(rate),
  passAtK: map(map(fraction)),
  passAtKCi: map(map(rateInterval)),
  passAtKKind: map(v.picklist(['unbiased', 'approximate', 'first-k'], "expected 'unbiased', 'approximate' or 'first-k'")),
  blind: map(map(rate)),
  blindRetention: map(map(blindRetention)),
  blindDropped: v.optional(map(object({ dropped: nonNegativeInteger, candidates: nonNegativeInteger, questions: nonNegativeInteger }))),
  chance: v.optional(object({ realized: chanceLevel, probes: map(chanceLevel) })),
  routesVsSearch: v.optional(probeComparison),
  exhausted: map(probeExhaustion),
  globalRoute: v.optional(globalRouteSummary),
  learnedRoute: v.optional(learnedRouteSummary),
  repair: v.optional(repairSummary),
  budget: map(budget),
  cost: object({ deployment: budget, globalRoutes: budget, repair: budget }),
  states: object({ realized: nonNegativeInteger, reachableNotRealized: nonNegativeInteger, unreached: nonNegativeInteger }),
  truncated: object({
    realized: nonNegativeInteger,
    probes: map(truncationCount),
    globalRoutes: v.optional(truncationCount),
    repair: v.optional(truncationCount),
  }),
  unfinishedThoughts: v.optional(
    object({
      realized: nonNegativeInteger,
      probes: map(thoughtCount),
      globalRoutes: v.optional(thoughtCount),
      repair: v.optional(thoughtCount),
    }),
  ),
  readings: v.optional(object({ strict: readingSummary, flexible: readingSummary })),
  coverAtTau: v.optional(map(v.array(object({ tau: fraction, covered: rate, chance: v.optional(fraction) }), 'expected an array of thresholds'))),
  depth: v.optional(
    object({
      n: nonNegativeInteger,
      budget: positiveInteger,
      curve: v.array(object({ at: depthMark, reached: rate, meanDepth: fraction }), 'expected an array of depth marks'),
      lostIn: object({ start: rate, quarter: v.tuple([rate, rate, rate, rate], 'expected four rates') }),
      tooShort: v.optional(nonNegativeInteger),
      early: rate,
      late: rate,
      cost: budget,
      trend: v.optional(object({ informative: nonNegativeInteger, p: fraction, minP: fraction })),
    }),
  ),
  foreclosure: v.optional(
    object({
      n: nonNegativeInteger,
      samples: positiveInteger,
      threshold: fraction,
      error: fraction,
      bracketed: nonNegativeInteger,
      decided: rate,
      oneToken: nonNegativeInteger,
      width: v.nullable(medianWithInterval),
      bracketWidth: v.nullable(medianWithInterval),
      prefixes: object({ reaches: nonNegativeInteger, not: nonNegativeInteger, undecided: nonNegativeInteger }),
      cost: budget,
    }),
  ),

  fork: v.optional(
    object({
      n: nonNegativeInteger,
      budget: positiveInteger,
      positions: positiveInteger,
      alternatives: positiveInteger,
      saved: rate,
      savedInFailureSet: rate,
      entropy: rate,
      random: rate,
      entropyOnly: nonNegativeInteger,
      randomOnly: nonNegativeInteger,
      entropyVsRandom: v.optional(pairedDelta),
      forks: object({ entropy: rate, random: rate }),
      earliestQuarter: v.tuple([nonNegativeInteger, nonNegativeInteger, nonNegativeInteger, nonNegativeInteger], 'expected four counts'),
      cost: budget,
    }),
  ),
  skipped: object({
    n: nonNegativeInteger,
    questions: v.array(
      object({ id: text, line: positiveInteger, promptTokens: nonNegativeInteger, maxNewTokens: nonNegativeInteger, contextLimit: nonNegativeInteger }),
      'expected an array',
    ),
    fewShotExamples: v.optional(v.array(object({ id: text, line: positiveInteger }), 'expected an array')),
  }),
  promptTruncated: nonNegativeInteger,
  probes: texts,
  selectors: texts,
  untilReached: v.optional(texts),
});

const numericsPlatform = object({ onnxruntime: text, arch: text, cpu: text, f32Kernels: text, int8Kernels: text, int8Path: v.optional(v.picklist(['block', 'row'], "expected 'block' or 'row'")), features: texts });

const examples = v.array(object({ user: text, assistant: text, source: v.optional(text) }), 'expected an array of examples');

const deployment = object({
  prompt: v.picklist(['chat', 'raw'], "expected 'chat' or 'raw'"),
  template: v.optional(text),
  system: v.optional(text),
  instruction: v.optional(text),
  chatTemplateKwargs: v.optional(map(v.unknown())),
  templateDate: v.optional(v.string()),
  preset: v.optional(text),
  preamble: v.optional(text),
  fewShot: examples,
  bySubject: v.optional(map(object({ preamble: text, fewShot: examples }))),
  exemplars: v.optional(v.picklist(['published', 'dev-split', 'test-split'], "expected 'published', 'dev-split' or 'test-split'")),
  temperature: v.pipe(v.number('expected a number ≥ 0'), v.minValue(0, 'expected a number ≥ 0')),
  topP: fraction,
  maxNewTokens: positiveInteger,
  stop: texts,
  truncatePrompt: v.optional(v.picklist(['none', 'left'], "expected 'none' or 'left'")),
});

export const runManifestSchema = object({
  name: text,
  createdAt: text,
  tool: object({ name: v.literal('reach-audit', "expected 'reach-audit'"), version: text }),
  engine: object({
    version: text,
    weights: v.optional(v.picklist(['f32', 'int8'], "expected 'f32' or 'int8'")),
    kvCache: v.optional(v.picklist(['f32', 'f16'], "expected 'f32' or 'f16'")),
    kvCacheFidelity: v.optional(object({
      questions: positiveInteger,
      maxNewTokens: positiveInteger,
      identicalSequences: nonNegativeInteger,
      referenceTokens: nonNegativeInteger,
      agreeingTokens: nonNegativeInteger,
      maxLogprobError: nonNegativeNumber,
      meanLogprobError: nonNegativeNumber,
    })),
    numerics: v.optional(numericsPlatform),
    numericsAlso: v.optional(v.array(numericsPlatform, 'expected an array')),
    kvMemory: v.optional(object({
      budgetBytes: positiveInteger,
      budgetFrom: v.picklist(['flag', 'default'], "expected 'flag' or 'default'"),
      availableBytes: v.optional(positiveInteger),
      share: v.optional(fraction),
      perSequenceBytes: positiveInteger,
      routeLength: positiveInteger,
      kvHeads: positiveInteger,
      headSize: positiveInteger,
      promptTokens: nonNegativeInteger,
      maxNewTokens: positiveInteger,
      slots: positiveInteger,
      bytesPerValue: v.optional(positiveInteger),
      atOnce: positiveInteger,
    })),
  }),
  model: object({ path: text, contentHash: text, numBlocks: nonNegativeInteger, tokenizerFrom: v.optional(object({ path: text, contentHash: text })) }),
  regradedFrom: v.optional(text),
  dataset: object({ path: text, contentHash: text, format: text, schema: text, questions: nonNegativeInteger, split: v.optional(text) }),
  backend: v.optional(
    object({
      backend: v.literal('openai', "expected 'openai'"),
      baseUrls: texts,
      apiModel: text,
      layerAccess: flag,
      perturbation: v.optional(v.literal(true, 'expected true (absent when not announced)')),
      seedHonoured: v.nullable(flag),
      concurrency: positiveInteger,
    }),
  ),
  imported: v.optional(
    object({
      sources: v.array(object({ file: text, sha256: text }), 'expected an array'),
      tool: text,
      toolVersion: v.nullable(text),
      task: text,
      model: v.nullable(text),
      generation: v.record(v.string(), v.unknown(), 'expected an object'),
      unknown: texts,
    }),
  ),
  deployment,
  probes: v.array(object({ name: v.picklist(PROBE_NAMES, `expected one of ${PROBE_NAMES.join(', ')}`), budget: positiveInteger }), 'expected an array of probes'),
  selectors: v.array(v.picklist(SELECTOR_NAMES, `expected one of ${SELECTOR_NAMES.join(', ')}`), 'expected an array of selectors'),
  repair: object({ enabled: flag, referenceProbes: texts }),
  globalRoutes: object({ count: nonNegativeInteger, routes: v.array(blockIndices, 'expected an array of routes'), skipped: v.optional(text) }),
  learnedRoute: v.optional(
    object({
      folds: positiveInteger,
      features: object({
        kind: v.picklist(ROUTER_FEATURE_KINDS, `expected one of ${ROUTER_FEATURE_KINDS.join(', ')}`),
        dims: positiveInteger,
        state: v.optional(object({ block: nonNegativeInteger, dims: positiveInteger, projectionSeed: nonNegativeInteger })),
      }),
      model: text,
      candidates: v.literal('global-route pool', "expected 'global-route pool'"),
    }),
  ),
  seeds: object({ run: nonNegativeInteger }),
  routeSpace: object({ maxEdits: positiveInteger, minLength: v.optional(positiveInteger), maxLength: v.optional(positiveInteger) }),
  search: object({
    c: finite,
    lambda: finite,
    exploration: fraction,
    widening: v.optional(v.union([v.pipe(finite, v.minValue(0, 'expected a number ≥ 0')), v.literal('off')], "expected a number ≥ 0 or 'off'")),
    reward: v.optional(v.picklist(['correct', 'gold-logprob'], "expected 'correct' or 'gold-logprob'")),
    rewardScale: v.optional(v.picklist(['none', 'spread'], "expected 'none' or 'spread'")),
    sweep: v.optional(v.array(finite, 'expected an array of numbers')),
  }),
  depthProbe: v.optional(object({ budget: positiveInteger })),
  foreclosureWindow: v.optional(object({ samples: positiveInteger, threshold: fraction, error: fraction, look: positiveInteger })),
  forkProbe: v.optional(object({ budget: positiveInteger, positions: positiveInteger, alternatives: positiveInteger, k: positiveInteger })),
  realizedFrom: v.optional(object({ source: text, sha256: text, tool: text })),
  untilReached: v.optional(v.literal(true, 'expected true')),
  grading: v.optional(
    object({
      correctBy: v.picklist(['stated', 'strict', 'flexible'], "expected 'stated', 'strict' or 'flexible'"),
      truncated: v.picklist(['strict', 'lenient'], "expected 'strict' or 'lenient'"),
      thinking: v.optional(
        object({
          open: v.pipe(text, v.minLength(1, 'expected a marker')),
          close: v.pipe(text, v.minLength(1, 'expected a marker')),
          from: v.picklist(['default', 'flag', 'tokenizer'], "expected 'default', 'flag' or 'tokenizer'"),
          startsInThought: flag,
        }),
      ),
    }),
  ),
  probeDecoding: v.optional(
    object({
      sample: object({ temperature: v.pipe(finite, v.minValue(0, 'expected a number ≥ 0')), topP: fraction }),
      routes: v.picklist(['deployment', 'greedy'], "expected 'deployment' or 'greedy'"),
    }),
  ),
  selection: object({
    limit: v.nullable(positiveInteger),
    ids: v.nullable(texts),
    shard: v.optional(
      v.nullable(
        object({ index: nonNegativeInteger, count: positiveInteger, questions: nonNegativeInteger, ofQuestions: nonNegativeInteger }),
      ),
    ),
  }),
});


const stateRow = object({ realized: texts, reachable: texts, unreached: texts });
const rateWithIds = v.pipe(object({ ...rateEntries, ids: texts }), v.check((r) => r.successes <= r.n, 'expected successes ≤ n'));

const deltaBound = v.nullable(difference);
const deltaAtK = object({
  k: positiveInteger,
  base: fraction,
  tuned: fraction,
  delta: difference,
  lo: deltaBound,
  hi: deltaBound,
  method: v.picklist(['newcombe', 'bootstrap', 'none'], "expected 'newcombe', 'bootstrap' or 'none'"),
});
const passAtKDeltaCurve = object({ what: text, n: nonNegativeInteger, points: v.array(deltaAtK, 'expected an array'), signChanges: v.array(positiveInteger, 'expected an array of k'), crossesBeyondNoise: flag });

export const comparisonSchema = object({
  n: nonNegativeInteger,
  unmatched: object({ baseOnly: texts, tunedOnly: texts }),
  realized: pairedDelta,
  reachableCeiling: pairedDelta,
  realizedNotReached: v.optional(object({ base: nonNegativeInteger, tuned: nonNegativeInteger })),
  reachable: map(pairedDelta),
  transitions: object({ realized: stateRow, reachable: stateRow, unreached: stateRow }),
  newlyRealized: object({ n: nonNegativeInteger, alreadyReachable: rateWithIds, newlyReachable: rateWithIds }),
  passAtKDeltas: v.optional(v.array(passAtKDeltaCurve, 'expected an array of Δpass@k curves')),
  foreclosure: v.optional(
    object({
      bracketed: nonNegativeInteger,
      n: nonNegativeInteger,
      later: nonNegativeInteger,
      earlier: nonNegativeInteger,
      same: nonNegativeInteger,
      onlyBase: nonNegativeInteger,
      onlyTuned: nonNegativeInteger,
      p: v.nullable(fraction),
    }),
  ),
});

const runRef = object({ folder: text, name: text, model: text, summary: runSummarySchema });
export const storedComparisonSchema = object({
  kind: v.literal('reach-audit-comparison', "expected 'reach-audit-comparison'"),
  createdAt: text,
  base: runRef,
  tuned: runRef,
  comparison: comparisonSchema,
});

const trajectoryPoint = object({
  label: text,
  folder: text,
  n: nonNegativeInteger,
  realized: rate,
  reachable: map(rate),
  ceiling: rate,
  realizedNotReached: nonNegativeInteger,
  passAt1: v.nullable(fraction),
  passAt1Ci: v.nullable(rateInterval),
  passAtK: v.nullable(fraction),
  passAtKCi: v.nullable(rateInterval),
  passAtKN: nonNegativeInteger,
});
const FLOW_KEYS = QUESTION_STATES.flatMap((a) => QUESTION_STATES.map((b): FlowKey => `${a}->${b}`));
const perFlow = <T extends v.GenericSchema>(value: T) => object(Object.fromEntries(FLOW_KEYS.map((k) => [k, value])) as Record<FlowKey, T>);
const trajectoryFlow = object({ from: text, to: text, n: nonNegativeInteger, counts: perFlow(nonNegativeInteger), ids: perFlow(texts) });

/**
 * trajectory.json as `reach-audit trajectory` writes it now. Readers of the file take only its
 * checkpoints' labels and folders (tableSources.ts), so a file from before a field was added is
 * still read; this schema is what a freshly written file satisfies.
 */
export const storedTrajectorySchema = object({
  kind: v.literal('reach-audit-trajectory', "expected 'reach-audit-trajectory'"),
  createdAt: text,
  probes: texts,
  ceilingBudget: nonNegativeInteger,
  passAtKProbe: v.nullable(text),
  passAtKMax: nonNegativeInteger,
  points: v.array(trajectoryPoint, 'expected an array of checkpoints'),
  flows: v.array(trajectoryFlow, 'expected an array of steps'),
  passAtKDeltas: v.optional(v.array(object({ label: text, base: text, curves: v.array(passAtKDeltaCurve, 'expected an array of Δpass@k curves') }), 'expected an array of checkpoints')),
});

// Compile-time: each schema describes exactly its contract type (both directions, optional fields included).
type SameType<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Flat<T> = T extends readonly unknown[] ? { [K in keyof T]: Flat<T[K]> } : T extends object ? { [K in keyof T]: Flat<T[K]> } : T;
type Same<A, B> = SameType<Flat<A>, Flat<B>>;
function sameType<A, B>(proof: Same<A, B>): Same<A, B> {
  return proof;
}
void [
  sameType<v.InferOutput<typeof rateInterval>, Interval>(true),
  sameType<v.InferOutput<typeof rate>, Rate>(true),
  sameType<v.InferOutput<typeof budget>, Budget>(true),
  sameType<v.InferOutput<ReturnType<typeof object<typeof gradedEntries>>>, GradedOutput>(true),
  sameType<v.InferOutput<typeof attempt>, Attempt>(true),
  sameType<v.InferOutput<typeof probeResult>, ProbeResult>(true),
  sameType<v.InferOutput<typeof blindChoice>, BlindChoice>(true),
  sameType<v.InferOutput<typeof globalRoutesResult>, GlobalRoutesResult>(true),
  sameType<v.InferOutput<typeof repairResult>, RepairResult>(true),
  sameType<v.InferOutput<typeof questionRecordSchema>, QuestionRecord>(true),
  sameType<v.InferOutput<typeof repairSummary>, RepairSummary>(true),
  sameType<v.InferOutput<typeof runSummarySchema>, RunSummary>(true),
  sameType<v.InferOutput<typeof deployment>, Deployment>(true),
  sameType<v.InferOutput<typeof runManifestSchema>, RunManifest>(true),
  sameType<v.InferOutput<typeof pairedDelta>, PairedDelta>(true),
  sameType<v.InferOutput<typeof comparisonSchema>, Comparison>(true),
  sameType<v.InferOutput<typeof storedComparisonSchema>, StoredComparison>(true),
  sameType<v.InferOutput<typeof trajectoryPoint>, TrajectoryPoint>(true),
  sameType<v.InferOutput<typeof trajectoryFlow>, TrajectoryFlow>(true),
  sameType<v.InferOutput<typeof storedTrajectorySchema>, StoredTrajectory>(true),
];
