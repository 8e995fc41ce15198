/**
 * `reach-audit trajectory`: checkpoints of one training run, in training order, audited under the
 * same settings (finished runs are reused, an interrupted one resumes), then the realized rate,
 * each probe's reachable rate and the ceiling per checkpoint, and the questions that moved between
 * states at each step. With --watch, the checkpoints are those a training run writes into a folder,
 * audited as they appear (the watching itself is the engine service's, src/service/trainingRunWatch.ts).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from './command';
import { UsageError } from './command';
import { AUDIT_FLAGS, AUDIT_FLAGS_HELP, refuseCheckpointsOnServers, watchStatusLine, watchTrainingRun, type AuditFlagValues } from '../service';
import { parseNumber, parseWholeNumber } from './flags';
import { interruptSignal, prepareAudit } from './auditRun';
import { parseFlags } from './flags';
import { loadRunForTables, writeTableFiles } from './tableFiles';
import { trajectory, type TrajectoryCheckpoint } from '../audit/results';
import { writeOutputFile } from './reportFiles';
import { manifestMismatches, loadRun, readManifest, SUMMARY_FILE, TRAJECTORIES_FOLDER, TRAJECTORY_FILE } from '../audit/store';
import type { StoredTrajectory, TrajectoryResult } from '../contract';
import { tablesText, trajectoryChart, trajectoryPassChart, trajectoryViews } from '../audit/report';

const help = [
  'Usage: reach-audit trajectory --model DIR --model DIR ... --data FILE [audit options] [--out DIR]',
  '       reach-audit trajectory --runs RUN --runs RUN ...',
  '       reach-audit trajectory --watch DIR --data FILE [audit options] [--out DIR]',
  '',
  'Audits every checkpoint of a training run (give them in training order, e.g. step-0 ... step-N)',
  'with the same settings, into DIR/<i>-<checkpoint>/ (default .reach-audit/trajectories/<name>/),',
  'reusing finished runs and resuming an interrupted one when run again. Prints, and writes to',
  'DIR/trajectory.json, per checkpoint the realized rate, each probe\'s reachable rate and the',
  'any-probe ceiling with 95% Wilson intervals, pass@1 vs pass@k of the sampling probe with 95%',
  'intervals (Wilson where each question is 0 or 1, as pass@B; else bootstrap, from 20 questions on;',
  'each number with its n), and between consecutive checkpoints how many',
  'questions moved between realized, reachable-not-realized and unreached. With --runs, finished',
  'run folders are used as they are (they must share settings).',
  '',
  'With --watch DIR, a training run is audited while it trains: every checkpoint folder that appears',
  'in DIR (checkpoint-500, global_step_1000, ...) is audited once it is complete (its files unchanged',
  'between two polls, config.json and the safetensors headers readable, a sharded index matching its',
  'shards), in step order (the last number in the name), each into OUT/<checkpoint>/ (OUT: --out, by',
  'default .reach-audit/trajectories/<watched folder>-<data>/), and OUT/trajectory.json (and --csv/--md/--html)',
  'is rewritten as each finishes. A status line says which checkpoint is audited, how many are',
  'queued and done. Ctrl-C stops after the current batch; run the same command again and finished',
  'checkpoints are reused, a half-done one resumes. A checkpoint the trainer deletes before or',
  'during its audit is skipped and named. Folders named tmp-* (the Trainer\'s staging) are ignored.',
  '',
  'Options:',
  '  --model DIR              a checkpoint folder; repeat, in training order',
  '  --runs RUN               a finished run folder instead; repeat, in training order',
  '  --labels a,b,c           checkpoint labels (default: the folder names)',
  '  --csv FILE, --md FILE, --html FILE   the tables (and the chart, in HTML) as files',
  '  --json                   print the trajectory as JSON on stdout',
  '  --allow-unfinished       with --runs: use runs that have not finished (their finished questions)',
  '  --watch DIR              audit the checkpoint folders a training run writes into DIR, as they appear',
  '  --poll SECONDS           with --watch: how often DIR is looked at (default 10)',
  '  --until-idle SECONDS     with --watch: stop once no checkpoint has been audited or queued, and no',
  '                           checkpoint folder has appeared or changed, for this long (default: until Ctrl-C)',
  '  --max-checkpoints N      with --watch: stop once N checkpoints are in the trajectory',
  ...AUDIT_FLAGS_HELP,
].join('\n');

export const trajectoryCommand: Command = {
  help,
  async run(args) {
    const values = parseFlags(args, {
      ...AUDIT_FLAGS,
      json: { type: 'boolean' },
      model: { type: 'string', multiple: true },
      runs: { type: 'string', multiple: true },
      labels: { type: 'string' },
      csv: { type: 'string' },
      md: { type: 'string' },
      html: { type: 'string' },
      'allow-unfinished': { type: 'boolean' },
      watch: { type: 'string' },
      poll: { type: 'string' },
      'until-idle': { type: 'string' },
      'max-checkpoints': { type: 'string' },
    });
    if (values.watch !== undefined) return watch(values);
    for (const flag of ['poll', 'until-idle', 'max-checkpoints'] as const) if (values[flag] !== undefined) throw new UsageError(`--${flag}: only with --watch DIR`);
    const models = values.model ?? [];
    const given = values.runs ?? [];
    if ((models.length > 0) === (given.length > 0)) throw new UsageError('expected either --model DIR (repeated) with --data FILE, or --runs RUN (repeated)');
    const count = models.length + given.length;
    if (count < 2) throw new UsageError('a trajectory needs at least two checkpoints');
    const labels = values.labels?.split(',').map((s) => s.trim()) ?? [...models, ...given].map((f) => path.basename(path.resolve(f)));
    if (labels.length !== count) throw new UsageError(`--labels: expected ${count} labels, got ${labels.length}`);

    let folders: string[];
    let out: string | undefined = values.out;
    if (models.length > 0) {
      refuseCheckpointsOnServers(values, '--model (repeated)');
      if (!values.data) throw new UsageError('--data: expected a benchmark file (JSONL or JSON)');
      const name = values.name ?? `${path.basename(values.data).replace(/\.(jsonl|json)$/i, '')}-trajectory`;
      out ??= path.join(process.cwd(), TRAJECTORIES_FOLDER, name.replace(/[^A-Za-z0-9._-]+/g, '_'));
      folders = models.map((m, i) => path.join(out!, `${i}-${path.basename(path.resolve(m)).replace(/[^A-Za-z0-9._-]+/g, '_')}`));
      // Every checkpoint is checked before any audit starts; finished ones are reused (resume), others start or resume.
      const starts = await Promise.all(models.map((m, i) =>
        prepareAudit({ values: { ...values, resume: fs.existsSync(path.join(folders[i], 'manifest.json')), out: undefined }, modelDir: m, name: `${name}-${i}`, folder: folders[i], label: labels[i] }),
      ));
      const interrupt = interruptSignal(() => 'run the same command again to resume');
      try {
        for (let i = 0; i < starts.length; i++) {
          const result = await starts[i](interrupt.signal);
          if (result.stopped) {
            process.stderr.write(`reach-audit: stopped at checkpoint ${labels[i]} (${result.records.length} questions finished, kept in ${result.folder}); run the same command again to resume.\n`);
            return 130;
          }
        }
      } finally {
        interrupt.release();
      }
    } else {
      folders = given;
      const problems = settingsProblems(given);
      if (problems.length > 0) throw new UsageError(`cannot build a trajectory from runs with different settings —\n  ${problems.join('\n  ')}`);
    }

    const checkpoints: TrajectoryCheckpoint[] = folders.map((f, i) => ({ label: labels[i], folder: path.resolve(f), records: loadRunForTables(f, { allowUnfinished: values['allow-unfinished'] === true }).records }));
    const result = writeTrajectory(checkpoints, out, values);
    process.stdout.write(values.json ? JSON.stringify(result, null, 2) + '\n' : tablesText(trajectoryViews(result)));
    return 0;
  },
};

type TrajectoryValues = AuditFlagValues & { model?: string[]; runs?: string[]; labels?: string; json?: boolean; csv?: string; md?: string; html?: string; watch?: string; poll?: string; 'until-idle'?: string; 'max-checkpoints'?: string };

/** Runs that differ in a setting that matters (the model's hash and tokenizer source, global routes' draws and the backend may differ between checkpoints). */
function settingsProblems(folders: readonly string[]): string[] {
  const manifests = folders.map((f) => loadRun(f).manifest);
  const strip = (m: (typeof manifests)[number]) => ({ ...m, model: { ...m.model, contentHash: '', tokenizerFrom: undefined }, globalRoutes: { count: m.globalRoutes?.count ?? 0, routes: [] }, backend: undefined });
  return manifests.slice(1).flatMap((m, i) => manifestMismatches(strip(manifests[0]), strip(m)).map((p) => `${folders[i + 1]}: ${p.replace('this command gives', 'this run has')}`));
}

/** trajectory.json in `out` (when given) and the --csv/--md/--html files; the trajectory computed. */
function writeTrajectory(checkpoints: readonly TrajectoryCheckpoint[], out: string | undefined, values: TrajectoryValues): TrajectoryResult {
  const result = trajectory(checkpoints);
  if (out) {
    const stored: StoredTrajectory = { kind: 'reach-audit-trajectory', createdAt: new Date().toISOString(), ...result };
    writeOutputFile('--out', path.join(out, TRAJECTORY_FILE), JSON.stringify(stored, null, 2) + '\n');
    process.stderr.write(`reach-audit: trajectory ${path.resolve(out, TRAJECTORY_FILE)}\n`);
  }
  for (const file of writeTableFiles(trajectoryViews(result), values, 'Reach Audit trajectory', [trajectoryChart(result), trajectoryPassChart(result)])) process.stderr.write(`reach-audit: wrote ${file}\n`);
  return result;
}

/**
 * A checkpoint's run folder in the trajectory's folder: its own name when that is safe for a path;
 * otherwise made safe, with a short hash of the real name, so that two names that map alike
 * ("ckpt 100" and "ckpt_100") never share a run folder.
 */
function runFolderName(checkpoint: string): string {
  const safe = checkpoint.replace(/[^A-Za-z0-9._-]+/g, '_');
  return safe === checkpoint ? safe : `${safe}-${createHash('sha256').update(checkpoint).digest('hex').slice(0, 8)}`;
}

/**
 * Checkpoints audited by an earlier watch into `out` whose folders are no longer in the watched
 * folder, by their own names (read from each run's manifest, so a name changed for its folder is
 * matched with the checkpoint it came from and not counted twice).
 */
function earlierCheckpoints(out: string, present: ReadonlySet<string>): string[] {
  if (!fs.existsSync(out)) return [];
  const names: string[] = [];
  for (const f of fs.readdirSync(out)) {
    if (!fs.existsSync(path.join(out, f, SUMMARY_FILE))) continue;
    const checkpoint = path.basename(readManifest(path.join(out, f)).model.path);
    if (runFolderName(checkpoint) === f && !present.has(checkpoint)) names.push(checkpoint);
  }
  return names;
}

/** `trajectory --watch DIR`: audits the checkpoints a training run writes as they appear. */
async function watch(values: TrajectoryValues): Promise<number> {
  const dir = path.resolve(values.watch!);
  if ((values.model?.length ?? 0) > 0 || (values.runs?.length ?? 0) > 0 || values.labels !== undefined) throw new UsageError('--watch: the checkpoints are the folders that appear in DIR; leave out --model, --runs and --labels');
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new UsageError(`--watch: ${dir} is not a folder`);
  if (!values.data) throw new UsageError('--data: expected a benchmark file (JSONL or JSON)');
  refuseCheckpointsOnServers(values, '--watch');
  const pollMs = 1000 * (parseNumber(values.poll, '--poll', (n) => n > 0, 'a number of seconds > 0') ?? 10);
  const idle = parseNumber(values['until-idle'], '--until-idle', (n) => n >= 0, 'a number of seconds >= 0');
  const maxCheckpoints = parseWholeNumber(values['max-checkpoints'], '--max-checkpoints', 1);
  const name = values.name ?? `${path.basename(dir)}-${path.basename(values.data).replace(/\.(jsonl|json)$/i, '')}`;
  const out = path.resolve(values.out ?? path.join(process.cwd(), TRAJECTORIES_FOLDER, runFolderName(name)));
  const runOf = (checkpoint: string) => path.join(out, runFolderName(checkpoint));
  // Finished checkpoints the trainer has since deleted stay in the trajectory; those still in DIR
  // are resumed like the rest (no question is redone, and a change of settings is refused).
  const earlier = earlierCheckpoints(out, new Set(fs.readdirSync(dir)));

  const checkpointsOf = (done: readonly string[]): TrajectoryCheckpoint[] => done.map((c) => ({ label: c, folder: runOf(c), records: loadRunForTables(runOf(c)).records }));
  let last: TrajectoryResult | undefined;
  process.stderr.write(`reach-audit: watching ${dir} for checkpoints (every ${pollMs / 1000} s); trajectory in ${out}\n`);
  const interrupt = interruptSignal(() => 'run the same command again to resume');
  let result;
  try {
    result = await watchTrainingRun({
      dir,
      pollMs,
      ...(idle !== undefined ? { untilIdleMs: idle * 1000 } : {}),
      ...(maxCheckpoints !== undefined ? { maxCheckpoints } : {}),
      done: earlier,
      auditedBefore: (checkpoint) => fs.existsSync(path.join(runOf(checkpoint), SUMMARY_FILE)),
      signal: interrupt.signal,
      audit: async (checkpoint, signal) => {
        const folder = runOf(checkpoint.name);
        const start = await prepareAudit({
          values: { ...values, resume: fs.existsSync(path.join(folder, 'manifest.json')), out: undefined },
          modelDir: checkpoint.dir,
          name: `${name}-${runFolderName(checkpoint.name)}`,
          folder,
          label: checkpoint.name,
        });
        return (await start(signal)).stopped ? 'stopped' : 'done';
      },
      onStatus: (status) => process.stderr.write(`reach-audit: watch: ${watchStatusLine(status)}\n`),
      onDone: (done) => {
        const folders = done.map(runOf);
        const problems = settingsProblems(folders);
        if (problems.length > 0) throw new UsageError(`the checkpoints in ${out} were audited with different settings —\n  ${problems.join('\n  ')}\nWatch into another --out, or with the first checkpoints' settings.`);
        last = writeTrajectory(checkpointsOf(done), out, values);
      },
    });
  } finally {
    interrupt.release();
  }
  if (last) process.stdout.write(values.json ? JSON.stringify(last, null, 2) + '\n' : tablesText(trajectoryViews(last)));
  if (result.ended === 'interrupted') {
    process.stderr.write(`reach-audit: watch stopped (${result.status.done.length} checkpoints done, kept in ${out}); run the same command again to resume.\n`);
    return 130;
  }
  process.stderr.write(`reach-audit: watch ended: ${result.ended === 'idle' ? `nothing new for ${idle} s` : `${maxCheckpoints} checkpoints done`}; ${watchStatusLine(result.status)}\n`);
  return 0;
}
