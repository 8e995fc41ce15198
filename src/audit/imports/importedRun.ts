/**
 * A harness log as a run (docs/design/data-in-data-out.md, "Imported logs"): each logged question read with the
 * benchmark schemas (its gold from its own row), its first output the deployment's and graded by
 * Reach Audit's rules exactly as an audit grades a generation, several outputs the sample probe,
 * and the harness's own readings kept beside ours. Pure: the caller reads and writes the files.
 */
import { createHash } from 'node:crypto';
import { InputError } from '../../common';
import type { Attempt, Deployment, GradingSettings, ImportedLog, QuestionRecord, RunManifest } from '../../contract';
import { DEFAULT_GRADING } from '../answers';
import { datasetFromRows, issueWhere, type AnswerFormat, type Dataset } from '../dataset';
import { costOf, DEFAULT_SEARCH } from '../probes';
import { gradedUnder, loggedGeneration, probeResult, TOOL_VERSION } from '../runner';
import type { HarnessLog } from './harnessLog';

export interface ImportOptions {
  name: string;
  createdAt: string;
  sources: ImportedLog['sources'];
  format?: AnswerFormat | 'auto';
  grading?: GradingSettings;
}

const numberOr = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

/** The deployment as the log states it: its decoding, token budget and stop strings (lm-eval's names and Inspect's). */
export function loggedDeployment(g: Record<string, unknown>): Deployment {
  const greedy = g.do_sample === false;
  const temperature = greedy ? 0 : numberOr(g.temperature, 0);
  const stop = g.until ?? g.stop_seqs ?? [];
  return {
    prompt: 'raw',
    fewShot: [],
    temperature,
    topP: numberOr(g.top_p, 1),
    maxNewTokens: Math.max(1, Math.round(numberOr(g.max_gen_toks ?? g.max_tokens ?? g.max_new_tokens, 256))),
    stop: (Array.isArray(stop) ? stop : [stop]).filter((s): s is string => typeof s === 'string'),
  };
}

/**
 * The benchmark a harness log asked: its logged rows read with the dataset schemas (so the golds and
 * choices are ours), hashed over the rows so two logs of the same questions share the hash. `label`
 * names the log in messages. Throws InputError for a row without a readable gold.
 */
export function loggedDataset(log: HarnessLog, label: string, format: AnswerFormat | 'auto' = 'auto'): Dataset {
  if (log.questions.length === 0) throw new InputError(`${label}: the log has no questions`);
  // The dataset is the logged benchmark rows: two logs of the same questions (base and tuned) share its hash.
  const contentHash = createHash('sha256').update(JSON.stringify(log.questions.map((q) => [q.position, q.doc]))).digest('hex');
  let dataset: Dataset;
  try {
    dataset = datasetFromRows(
      label,
      log.questions.map((q) => ({ line: q.position, index: q.position, value: q.doc })),
      contentHash,
      { format },
    );
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    throw new InputError(`the logged benchmark rows cannot be graded (every question needs its gold answer in the row the harness logged): ${e.message}`);
  }
  // Nothing half: a question whose row has no gold to grade against stops the import.
  if (dataset.issues.length > 0) {
    const first = dataset.issues[0];
    const q = log.questions.find((x) => x.position === first.line);
    throw new InputError(
      `${q?.where ?? label}: the logged document (${issueWhere(first)} of the benchmark) cannot be graded: ${first.message}` +
        (dataset.issues.length > 1 ? ` (and ${dataset.issues.length - 1} more)` : '') +
        '; every question needs its gold answer in the logged row',
    );
  }
  return dataset;
}

/** The run of a harness log: its manifest and its records in question order. Throws InputError for a question without a readable gold. */
export function importedRun(log: HarnessLog, options: ImportOptions): { manifest: RunManifest; records: QuestionRecord[] } {
  const grading = options.grading ?? DEFAULT_GRADING;
  const label = options.sources.map((s) => s.file).join(', ');
  const dataset = loggedDataset(log, label, options.format ?? 'auto');
  const { contentHash } = dataset;
  const budget = log.questions[0].outputs.length;
  const uneven = log.questions.find((q) => q.outputs.length !== budget);
  if (uneven) throw new InputError(`${uneven.where}: ${uneven.outputs.length} outputs, but the first question has ${budget}; expected the same number of repeats for every question`);

  const byLine = new Map(dataset.questions.map((q) => [q.line, q]));
  const records = log.questions.map((logged): QuestionRecord => {
    const q = byLine.get(logged.position)!;
    const generations = logged.outputs.map(loggedGeneration);
    const attempts: Attempt[] = generations.map((g) => gradedUnder(g, q, grading));
    const record: QuestionRecord = {
      id: q.id,
      line: q.line,
      gold: q.gold,
      question: q.text,
      ...(q.format === 'choice' && q.choices && q.choices.length > 0 ? { options: q.choices.length } : {}),
      realized: { ...attempts[0], cost: costOf([generations[0]]) },
      probes: budget > 1 ? { sample: probeResult(budget, attempts, generations) } : {},
      reachable: budget > 1 ? { sample: attempts.some((a) => a.correct) } : {},
      blind: {},
      harness: { prompt: logged.prompt, readings: logged.readings },
    };
    return record;
  });

  const deployment = loggedDeployment(log.generation);
  const { questions: _questions, ...about } = log;
  const manifest: RunManifest = {
    name: options.name,
    createdAt: options.createdAt,
    tool: { name: 'reach-audit', version: TOOL_VERSION },
    engine: { version: `none: outputs imported from ${log.tool}` },
    model: { path: log.model ?? 'unknown (not named in the log)', contentHash: '', numBlocks: 0 },
    dataset: { path: options.sources[0].file, contentHash, format: dataset.format, schema: dataset.schema, questions: records.length },
    deployment,
    probes: budget > 1 ? [{ name: 'sample', budget }] : [],
    probeDecoding: { sample: { temperature: deployment.temperature, topP: deployment.topP }, routes: 'deployment' },
    selectors: [],
    repair: { enabled: false, referenceProbes: [] },
    globalRoutes: { count: 0, routes: [] },
    seeds: { run: 0 },
    routeSpace: { maxEdits: 1 },
    search: { ...DEFAULT_SEARCH },
    grading,
    selection: { limit: null, ids: null },
    imported: { sources: options.sources, ...about },
  };
  return { manifest, records };
}
