/**
 * reach-audit fidelity: what a weight precision or a KV cache precision changes in the deployed
 * outputs. Runs the deployment (the audit's prompt, decoding, budget and stops, the same
 * per-question seeds) on every selected question with the reference (F32 weights, f32 cache) and
 * with the asked precision, and reports the share of questions whose output text is unchanged,
 * whose grade (correct or not) is unchanged, and both accuracies, each with its n and Wilson 95%
 * interval; and the token-level agreement (greedyAgreement.ts): tokens before the first
 * divergence, identical sequences, and the chosen tokens' log-prob error over the agreeing tokens.
 */
import type { Command } from './command';
import { UsageError } from './command';
import { AUDIT_FLAGS, greedyAgreement, greedyAgreementText, optionsFromFlags, readDataset, readPreSettings, selectQuestions } from '../service';
import { parseFlags, parseKvCache, parseWeights } from './flags';
import { loadModel, type Generation, type KvPrecision, type WeightPrecision } from '../engine/index';
import { deploymentRequest, promptIds } from '../audit/probes';
import { grade } from '../audit/answers';
import { seedFor } from '../audit/stats';
import { wilsonInterval } from '../contract';
import type { Question } from '../audit/dataset';

const help = [
  'Usage: reach-audit fidelity --model DIR --data FILE [--weights int8 | --kv-cache f16] [options]',
  '',
  'Runs the deployment on each question with F32 weights and an f32 KV cache, and with --weights',
  '(default int8) or, given --kv-cache f16, with an f16 KV cache (at f32 weights); reports the share',
  'of questions whose deployed output and grade are unchanged, with n and Wilson 95% intervals, and',
  'the token agreement: tokens before the first divergence, identical sequences, and the chosen',
  'tokens\' log-prob error (max, mean) over the agreeing tokens. Deployment options are the audit\'s (--prompt, --template, --system,',
  '--fewshot, --max-new-tokens, --temperature, --top-p, --stop, --seed); --limit and --ids select.',
  '',
  'Options:',
  '  --model DIR          Hugging Face model folder',
  '  --data FILE          benchmark file (JSONL or JSON array)',
  '  --weights P          the precision to check against f32 (default int8)',
  '  --kv-cache f16       check an f16 KV cache against the f32 cache instead',
  '  --threads N, --cache-dir DIR, --max-batch N   engine threads, graph cache, batch size',
  '  --json               print the figures as JSON',
].join('\n');

interface Deployed {
  output: string;
  correct: boolean;
  tokens: number[];
  logprobs: number[];
}

interface Precision {
  weights: WeightPrecision;
  kvCache: KvPrecision;
}

async function deploy(modelDir: string, { weights, kvCache }: Precision, questions: readonly Question[], run: { seed: number; threads?: number; cacheDir?: string; maxBatch?: number; deployment: ReturnType<typeof readPreSettings>['deployment'] }): Promise<Deployed[]> {
  const model = await loadModel(modelDir, {
    weights,
    kvCache,
    ...(run.threads !== undefined ? { threads: run.threads } : {}),
    ...(run.cacheDir !== undefined ? { cacheDir: run.cacheDir } : {}),
    ...(run.maxBatch !== undefined ? { maxBatch: run.maxBatch } : {}),
  });
  try {
    const d = run.deployment;
    const requests = questions.map((q) => deploymentRequest(d, promptIds(d, q, model), { temperature: d.temperature, topP: d.topP, seed: seedFor(run.seed, q.id, 'deploy') }));
    const out: Generation[] = await model.generate(requests);
    return out.map((g, i) => ({ output: g.text, correct: grade(g.text, questions[i], { truncated: g.finishReason === 'length' }).correct, tokens: g.tokens, logprobs: g.logprobs }));
  } finally {
    await model.dispose();
  }
}

function rate(k: number, n: number): { share: number; k: number; n: number; interval: { lo: number; hi: number } } {
  return { share: n ? k / n : 0, k, n, interval: wilsonInterval(k, n) };
}

export const fidelityCommand: Command = {
  help,
  async run(args) {
    const values = parseFlags(args, { ...AUDIT_FLAGS, model: { type: 'string' }, json: { type: 'boolean' } });
    const kvCache = parseKvCache(values['kv-cache']);
    const options = optionsFromFlags(values);
    if (!values.model) throw new UsageError('--model: expected a model folder');
    if (kvCache === 'f32') throw new UsageError('--kv-cache: f32 is the reference; give the precision to check (f16)');
    const weights = parseWeights(values.weights) ?? (kvCache ? 'f32' : 'int8');
    if (weights === 'f32' && !kvCache) throw new UsageError('--weights: f32 is the reference; give the precision to check (int8)');
    if (weights !== 'f32' && kvCache) throw new UsageError('--weights with --kv-cache: check one precision at a time (the reference is f32 weights with an f32 cache)');
    const checked: Precision = { weights, kvCache: kvCache ?? 'f32' };
    const what = kvCache ? `an ${kvCache} KV cache` : `${weights} weights`;
    const dataset = await readDataset(options);
    const { questions } = selectQuestions(dataset, options);
    if (questions.length === 0) throw new UsageError('no questions selected');
    const pre = readPreSettings(options);
    const run = {
      seed: pre.seed,
      threads: options.threads,
      cacheDir: options.cacheDir,
      maxBatch: pre.maxBatch,
      deployment: pre.deployment,
    };
    const log = (m: string): void => { process.stderr.write(`fidelity: ${m}\n`); };
    log(`${questions.length} questions, deployment with f32 weights and an f32 KV cache`);
    const ref = await deploy(values.model, { weights: 'f32', kvCache: 'f32' }, questions, run);
    log(`deployment with ${what}`);
    const got = await deploy(values.model, checked, questions, run);
    const agreement = greedyAgreement(ref, got);
    const n = questions.length;
    const sameOutput = ref.filter((r, i) => r.output === got[i].output).length;
    const sameGrade = ref.filter((r, i) => r.correct === got[i].correct).length;
    const figures = {
      model: values.model,
      data: values.data,
      weights,
      kvCache: checked.kvCache,
      questions: n,
      unchanged: rate(ref.filter((r, i) => r.output === got[i].output && r.correct === got[i].correct).length, n),
      sameOutput: rate(sameOutput, n),
      sameGrade: rate(sameGrade, n),
      accuracyF32: rate(ref.filter((r) => r.correct).length, n),
      accuracy: rate(got.filter((r) => r.correct).length, n),
      changed: questions.filter((_, i) => ref[i].output !== got[i].output).map((q) => q.id),
      agreement: { ...agreement, firstDivergence: undefined },
    };
    if (values.json) {
      process.stdout.write(JSON.stringify(figures, null, 2) + '\n');
      return 0;
    }
    const pct = (r: ReturnType<typeof rate>): string => `${(100 * r.share).toFixed(1)}% (${r.k}/${r.n}) [${(100 * r.interval.lo).toFixed(1)}, ${(100 * r.interval.hi).toFixed(1)}]`;
    process.stdout.write([
      `fidelity of ${what} vs f32, ${n} questions (Wilson 95% intervals)`,
      `output and grade unchanged  ${pct(figures.unchanged)}`,
      `output unchanged            ${pct(figures.sameOutput)}`,
      `grade unchanged             ${pct(figures.sameGrade)}`,
      `accuracy f32                ${pct(figures.accuracyF32)}`,
      `accuracy ${(kvCache ? `${kvCache} cache` : weights).padEnd(19)}${pct(figures.accuracy)}`,
      `token agreement             ${greedyAgreementText(agreement)}`,
    ].join('\n') + '\n');
    return 0;
  },
};
