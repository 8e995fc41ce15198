/**
 * `reach-audit compare`: checkpoint comparison of a base and a tuned model under the same
 * deployment, probes, budgets and seeds — from two finished runs, or by auditing both models now.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import type { Command } from './command';
import { UsageError, warn } from './command';
import { AUDIT_FLAGS, AUDIT_FLAGS_HELP, CLI_ONLY_OPTION_NAMES, isRemoteBackend, type AuditOptions, type AuditRequestOptions, defaultComparisonName, prepareComparisonSides, writeComparisonOf } from '../service';
import { heldWeightBytes, planSideBySide, runSideBySide, type SideOutcome } from './sideBySide';
import { interruptSignal, prepareAudit } from './auditRun';
import { parseFlags } from './flags';
import { writeHtmlReport } from './reportFiles';
import { MARGIN_FLAG, MARGIN_HELP, parseMargin } from './marginFlag';
import { COMPARISON_FILE, readRecords } from '../audit/store';
import { comparisonReportHtml, formatComparison, formatSummary, forkTransitionText, passAtKDeltaLines, retentionTableLines } from '../audit/report';
import { forkTransition } from '../audit/results';
import type { StoredComparison } from '../contract';

const help = [
  'Usage: reach-audit compare --base-run RUN --tuned-run RUN [--html FILE] [--json] [--out DIR]',
  '       reach-audit compare --base-model DIR --tuned-model DIR --data FILE [audit options] [--html FILE]',
  '',
  'Compares two checkpoints question by question: realized Δ and reachable-ceiling Δ with Newcombe\'s',
  'paired score 95% intervals, exact McNemar tests and a verdict against the margin (better / worse /',
  'equivalent / inconclusive), the transition table between states (realized / reachable /',
  'unreached), and newly realized questions split into already',
  'reachable by the base model vs newly reachable. With --base-model/--tuned-model both models are',
  'audited first with the same settings (runs <name>-base and <name>-tuned; under --out DIR they go',
  'to DIR/base and DIR/tuned). The comparison is written to comparison.json in --out DIR or',
  '.reach-audit/comparisons/<time>-<name>/.',
  '',
  'Options:',
  '  --base-run RUN, --tuned-run RUN    finished run folders',
  '  --base-model DIR, --tuned-model DIR   model folders to audit now',
  '  --html FILE              also write a self-contained HTML report',
  '  --mixed-backends         compare runs made on different backends (local engine vs a server)',
  '  --mixed-weights          compare runs made with different --weights (f32 vs int8); refused otherwise',
  '  --json                   print the comparison as JSON on stdout',
  MARGIN_HELP,
  '  --one-at-a-time          audit the base model, then the tuned one (default with --base-model:',
  '                           both at once, each in its own engine process with half the threads,',
  '                           when both fit in memory; the runs are the same either way)',
  ...AUDIT_FLAGS_HELP,
].join('\n');

export const compareCommand: Command = {
  help,
  async run(args) {
    const values = parseFlags(args, {
      'base-run': { type: 'string' },
      'tuned-run': { type: 'string' },
      'base-model': { type: 'string' },
      'tuned-model': { type: 'string' },
      html: { type: 'string' },
      'mixed-backends': { type: 'boolean' },
      'mixed-weights': { type: 'boolean' },
      json: { type: 'boolean' },
      'one-at-a-time': { type: 'boolean' },
      ...MARGIN_FLAG,
      ...AUDIT_FLAGS,
    });
    const margin = parseMargin(values.margin);
    const fromRuns = values['base-run'] !== undefined || values['tuned-run'] !== undefined;
    const fromModels = values['base-model'] !== undefined || values['tuned-model'] !== undefined;
    if (fromRuns === fromModels) throw new UsageError('expected either --base-run RUN --tuned-run RUN, or --base-model DIR --tuned-model DIR --data FILE');
    let baseFolder: string;
    let tunedFolder: string;
    let name: string;
    if (fromRuns) {
      if (!values['base-run'] || !values['tuned-run']) throw new UsageError('--base-run and --tuned-run: both run folders are needed');
      baseFolder = values['base-run'];
      tunedFolder = values['tuned-run'];
      name = values.name ?? defaultComparisonName({ baseRun: baseFolder, tunedRun: tunedFolder });
    } else {
      const baseModel = values['base-model'];
      const tunedModel = values['tuned-model'];
      if (!baseModel || !tunedModel) throw new UsageError('--base-model and --tuned-model: both model folders are needed');
      if (!values.data) throw new UsageError('--data: expected a benchmark file (JSONL or JSON)');
      name = values.name ?? defaultComparisonName({ baseModel, tunedModel, data: values.data });
      // Both audits are checked before either starts, so bad input fails before any model work.
      const warned = new Set<string>();
      const noteWarning = (message: string) => (warned.add(message), warn(message));
      const sides = prepareComparisonSides({ name, out: values.out, baseModel, tunedModel, backend: values.backend }, (side) =>
        prepareAudit({ values, modelDir: side.modelDir, name: side.name, folder: side.folder, label: side.label, resumeOrStart: true, warn: noteWarning }),
      );
      const [startBase, startTuned] = await Promise.all([sides.base, sides.tuned]);
      const plan = planSideBySide({
        oneAtATime: values['one-at-a-time'] === true,
        remote: engineProcessRefuses(startBase.options),
        threads: startBase.options.threads,
        cores: os.availableParallelism(),
        freeMemoryBytes: os.freemem(),
        modelBytes: [heldWeightBytes(baseModel, startBase.options.weights), heldWeightBytes(tunedModel, startTuned.options.weights)],
      });
      if (!plan.sideBySide && plan.why) process.stderr.write(`reach-audit: auditing the base model, then the tuned one: ${plan.why}\n`);
      const interrupt = interruptSignal(() => 'run the same command with --resume');
      try {
        if (plan.sideBySide) {
          process.stderr.write(`reach-audit: auditing both models at once, ${plan.threads[0]} and ${plan.threads[1]} engine threads (--one-at-a-time for one after the other)\n`);
          const outcomes = await runSideBySide(
            [
              { label: 'base', options: requestOptions(startBase.options, baseModel, plan.threads[0]) },
              { label: 'tuned', options: requestOptions(startTuned.options, tunedModel, plan.threads[1]) },
            ],
            process.argv[1],
            interrupt.signal,
            warn,
            warned,
          );
          const stopped = outcomes.filter((o): o is Extract<SideOutcome, { stopped: true }> => o.stopped);
          if (stopped.length > 0) {
            for (const o of stopped) process.stderr.write(`reach-audit: stopped; the ${o.label} run keeps ${o.done} finished questions${o.folder ? ` in ${o.folder}` : ''}.\n`);
            process.stderr.write('reach-audit: continue with the same command and --resume.\n');
            return 130;
          }
          for (const o of outcomes) process.stderr.write(`${o.label}: run folder ${o.folder}\n`);
          [baseFolder, tunedFolder] = outcomes.map((o) => o.folder!);
        } else {
          const base = await startBase(interrupt.signal);
          if (base.stopped) {
            process.stderr.write(`reach-audit: stopped; the base run keeps ${base.records.length} finished questions in ${base.folder}. Continue with the same command and --resume.\n`);
            return 130;
          }
          const tuned = await startTuned(interrupt.signal);
          if (tuned.stopped) {
            process.stderr.write(`reach-audit: stopped; the tuned run keeps ${tuned.records.length} finished questions in ${tuned.folder}. Continue with the same command and --resume.\n`);
            return 130;
          }
          baseFolder = base.folder;
          tunedFolder = tuned.folder;
        }
      } finally {
        interrupt.release();
      }
    }
    const { folder, stored } = writeComparisonOf({
      baseFolder,
      tunedFolder,
      out: values.out,
      workspace: process.cwd(),
      name,
      warn,
      mixedBackends: values['mixed-backends'] === true,
      mixedWeights: values['mixed-weights'] === true,
      margin,
    });
    if (values.html) {
      const file = writeHtmlReport(values.html, comparisonReportHtml(stored, readRecords(baseFolder).values, readRecords(tunedFolder).values));
      process.stderr.write(`reach-audit: HTML report ${file}\n`);
    }
    process.stderr.write(`reach-audit: comparison ${path.resolve(folder, COMPARISON_FILE)}\n`);
    if (values.json) {
      process.stdout.write(JSON.stringify(stored, null, 2) + '\n');
    } else {
      process.stdout.write(
        [
          formatSummary(stored.base.summary, `Base — ${stored.base.name}`),
          '',
          formatSummary(stored.tuned.summary, `Tuned — ${stored.tuned.name}`),
          '',
          formatComparison(stored.comparison),
          ...forkTransitionLines(stored, baseFolder, tunedFolder),
          '',
          ...passAtKDeltaLines(stored.comparison.passAtKDeltas ?? []),
          ...retentionTableLines([{ label: 'base', summary: stored.base.summary }, { label: 'tuned', summary: stored.tuned.summary }]),
        ].join('\n') + '\n',
      );
    }
    return 0;
  },
};

/** Did training move the forks: a line when both runs have fork results (their records are read for the pairing). */
function forkTransitionLines(stored: StoredComparison, baseFolder: string, tunedFolder: string): string[] {
  if (!stored.base.summary.fork || !stored.tuned.summary.fork) return [];
  const t = forkTransition(readRecords(baseFolder).values, readRecords(tunedFolder).values);
  return t ? [`  ${forkTransitionText(t)}`] : [];
}

/**
 * A comparison that runs here, one model after the other: on servers (nothing to split between two
 * engine processes here) or with an option an engine process does not take (a shard).
 */
function engineProcessRefuses(options: AuditOptions): boolean {
  return isRemoteBackend(options) || Object.keys(options).some((k) => CLI_ONLY_OPTION_NAMES.has(k));
}

/** One side's audit as an engine-process request: the decided folder and resume, its model, its threads, paths read from here. */
function requestOptions(options: AuditOptions & { out: string; name: string; resume: boolean }, model: string, threads: number): AuditRequestOptions {
  const kept = Object.fromEntries(Object.entries(options).filter(([k]) => !CLI_ONLY_OPTION_NAMES.has(k)));
  const { data } = options;
  if (data === undefined) throw new UsageError('--data: expected a benchmark file (JSONL or JSON)');
  return { ...(kept as Omit<AuditRequestOptions, 'model' | 'data'>), data, model, threads, workspace: process.cwd() };
}
