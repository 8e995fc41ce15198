/**
 * `reach-audit trajectory`: checkpoints of one training run, in training order, audited under the
 * same settings (finished runs are reused, an interrupted one resumes), then the realized rate,
 * each probe's reachable rate and the ceiling per checkpoint, and the questions that moved between
 * states at each step.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from './command';
import { UsageError } from './command';
import { AUDIT_FLAGS, AUDIT_FLAGS_HELP } from '../service';
import { interruptSignal, prepareAudit } from './auditRun';
import { parseFlags } from './flags';
import { loadRunForTables, writeTableFiles } from './tableFiles';
import { TRAJECTORIES_FOLDER, TRAJECTORY_FILE, trajectory, type TrajectoryCheckpoint } from '../audit/results';
import { writeOutputFile } from './reportFiles';
import { manifestMismatches, loadRun } from '../audit/store';
import type { StoredTrajectory } from '../contract';
import { tablesText, trajectoryChart, trajectoryPassChart, trajectoryViews } from '../audit/report';

const help = [
  'Usage: reach-audit trajectory --model DIR --model DIR ... --data FILE [audit options] [--out DIR]',
  '       reach-audit trajectory --runs RUN --runs RUN ...',
  '',
  'Audits every checkpoint of a training run (give them in training order, e.g. step-0 ... step-N)',
  'with the same settings, into DIR/<i>-<checkpoint>/ (default .reach-audit/trajectories/<name>/),',
  'reusing finished runs and resuming an interrupted one when run again. Prints, and writes to',
  'DIR/trajectory.json, per checkpoint the realized rate, each probe\'s reachable rate and the',
  'any-probe ceiling with 95% Wilson intervals, pass@1 vs pass@k of the sampling probe with 95%',
  'bootstrap intervals (each number with its n), and between consecutive checkpoints how many',
  'questions moved between realized, reachable-not-realized and unreached. With --runs, finished',
  'run folders are used as they are (they must share settings).',
  '',
  'Options:',
  '  --model DIR              a checkpoint folder; repeat, in training order',
  '  --runs RUN               a finished run folder instead; repeat, in training order',
  '  --labels a,b,c           checkpoint labels (default: the folder names)',
  '  --csv FILE, --md FILE, --html FILE   the tables (and the chart, in HTML) as files',
  '  --json                   print the trajectory as JSON on stdout',
  '  --allow-unfinished       with --runs: use runs that have not finished (their finished questions)',
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
    });
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
      if (!values.data) throw new UsageError('--data: expected a benchmark file (JSONL or JSON)');
      const name = values.name ?? `${path.basename(values.data).replace(/\.(jsonl|json)$/i, '')}-trajectory`;
      out ??= path.join(process.cwd(), TRAJECTORIES_FOLDER, name.replace(/[^A-Za-z0-9._-]+/g, '_'));
      folders = models.map((m, i) => path.join(out!, `${i}-${path.basename(path.resolve(m)).replace(/[^A-Za-z0-9._-]+/g, '_')}`));
      // Every checkpoint is checked before any audit starts; finished ones are reused (resume), others start or resume.
      const starts = models.map((m, i) =>
        prepareAudit({ values: { ...values, resume: fs.existsSync(path.join(folders[i], 'manifest.json')), out: undefined }, modelDir: m, name: `${name}-${i}`, folder: folders[i], label: labels[i] }),
      );
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
      const manifests = given.map((f) => loadRun(f).manifest);
      const strip = (m: (typeof manifests)[number]) => ({ ...m, model: { ...m.model, contentHash: '' }, globalRoutes: { count: m.globalRoutes?.count ?? 0, routes: [] }, backend: undefined });
      const problems = manifests.slice(1).flatMap((m, i) => manifestMismatches(strip(manifests[0]), strip(m)).map((p) => `${given[i + 1]}: ${p.replace('this command gives', 'this run has')}`));
      if (problems.length > 0) throw new UsageError(`cannot build a trajectory from runs with different settings —\n  ${problems.join('\n  ')}`);
    }

    const checkpoints: TrajectoryCheckpoint[] = folders.map((f, i) => ({ label: labels[i], folder: path.resolve(f), records: loadRunForTables(f, { allowUnfinished: values['allow-unfinished'] === true }).records }));
    const result = trajectory(checkpoints);
    if (out) {
      const stored: StoredTrajectory = { kind: 'reach-audit-trajectory', createdAt: new Date().toISOString(), ...result };
      writeOutputFile('--out', path.join(out, TRAJECTORY_FILE), JSON.stringify(stored, null, 2) + '\n');
      process.stderr.write(`reach-audit: trajectory ${path.resolve(out, TRAJECTORY_FILE)}\n`);
    }
    const views = trajectoryViews(result);
    for (const file of writeTableFiles(views, values, 'Reach Audit trajectory', [trajectoryChart(result), trajectoryPassChart(result)])) process.stderr.write(`reach-audit: wrote ${file}\n`);
    process.stdout.write(values.json ? JSON.stringify(result, null, 2) + '\n' : tablesText(views));
    return 0;
  },
};
