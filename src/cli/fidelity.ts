/**
 * reach-audit fidelity: what a weight precision changes in the deployed outputs. Runs the
 * deployment (the audit's prompt, decoding, budget and stops, the same per-question seeds) on
 * every selected question with F32 weights and with the asked precision, and reports the share
 * of questions whose output text is unchanged, whose grade (correct or not) is unchanged, and both
 * accuracies, each with its n and Wilson 95% interval.
 */
import type { Command } from './command';
import { UsageError } from './command';
import { AUDIT_FLAGS, optionsFromFlags, readDataset, readPreSettings, selectQuestions } from '../service';
import { parseFlags, parseWeights } from './flags';
import { loadModel, type Generation, type WeightPrecision } from '../engine/index';
import { deploymentRequest, promptIds } from '../audit/probes';
import { grade } from '../audit/answers';
import { seedFor } from '../audit/stats';
import { wilsonInterval } from '../contract';
import type { Question } from '../audit/dataset';

const help = [
  'Usage: reach-audit fidelity --model DIR --data FILE [--weights int8] [options]',
  '',
  'Runs the deployment on each question with F32 weights and with --weights (default int8) and',
  'reports the share of questions whose deployed output and grade are unchanged, with n and',
  'Wilson 95% intervals. Deployment options are the audit\'s (--prompt, --template, --system,',
  '--fewshot, --max-new-tokens, --temperature, --top-p, --stop, --seed); --limit and --ids select.',
  '',
  'Options:',
  '  --model DIR          Hugging Face model folder',
  '  --data FILE          benchmark file (JSONL or JSON array)',
  '  --weights P          the precision to check against f32 (default int8)',
  '  --threads N, --cache-dir DIR, --max-batch N   engine threads, graph cache, batch size',
  '  --json               print the figures as JSON',
].join('\n');

interface Deployed {
  output: string;
  correct: boolean;
}

async function deploy(modelDir: string, weights: WeightPrecision, questions: readonly Question[], run: { seed: number; threads?: number; cacheDir?: string; maxBatch?: number; deployment: ReturnType<typeof readPreSettings>['deployment'] }): Promise<Deployed[]> {
  const model = await loadModel(modelDir, {
    weights,
    ...(run.threads !== undefined ? { threads: run.threads } : {}),
    ...(run.cacheDir !== undefined ? { cacheDir: run.cacheDir } : {}),
    ...(run.maxBatch !== undefined ? { maxBatch: run.maxBatch } : {}),
  });
  try {
    const d = run.deployment;
    const requests = questions.map((q) => deploymentRequest(d, promptIds(d, q, model), { temperature: d.temperature, topP: d.topP, seed: seedFor(run.seed, q.id, 'deploy') }));
    const out: Generation[] = await model.generate(requests);
    return out.map((g, i) => ({ output: g.text, correct: grade(g.text, questions[i], { truncated: g.finishReason === 'length' }).correct }));
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
    const options = optionsFromFlags(values);
    if (!values.model) throw new UsageError('--model: expected a model folder');
    const weights = parseWeights(values.weights) ?? 'int8';
    if (weights === 'f32') throw new UsageError('--weights: f32 is the reference; give the precision to check (int8)');
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
    log(`${questions.length} questions, deployment with f32 weights`);
    const ref = await deploy(values.model, 'f32', questions, run);
    log(`deployment with ${weights} weights`);
    const got = await deploy(values.model, weights, questions, run);
    const n = questions.length;
    const sameOutput = ref.filter((r, i) => r.output === got[i].output).length;
    const sameGrade = ref.filter((r, i) => r.correct === got[i].correct).length;
    const figures = {
      model: values.model,
      data: values.data,
      weights,
      questions: n,
      unchanged: rate(ref.filter((r, i) => r.output === got[i].output && r.correct === got[i].correct).length, n),
      sameOutput: rate(sameOutput, n),
      sameGrade: rate(sameGrade, n),
      accuracyF32: rate(ref.filter((r) => r.correct).length, n),
      accuracy: rate(got.filter((r) => r.correct).length, n),
      changed: questions.filter((_, i) => ref[i].output !== got[i].output).map((q) => q.id),
    };
    if (values.json) {
      process.stdout.write(JSON.stringify(figures, null, 2) + '\n');
      return 0;
    }
    const pct = (r: ReturnType<typeof rate>): string => `${(100 * r.share).toFixed(1)}% (${r.k}/${r.n}) [${(100 * r.interval.lo).toFixed(1)}, ${(100 * r.interval.hi).toFixed(1)}]`;
    process.stdout.write([
      `fidelity of ${weights} weights vs f32, ${n} questions (Wilson 95% intervals)`,
      `output and grade unchanged  ${pct(figures.unchanged)}`,
      `output unchanged            ${pct(figures.sameOutput)}`,
      `grade unchanged             ${pct(figures.sameGrade)}`,
      `accuracy f32                ${pct(figures.accuracyF32)}`,
      `accuracy ${weights.padEnd(19)}${pct(figures.accuracy)}`,
    ].join('\n') + '\n');
    return 0;
  },
};
