/**
 * `reach-audit bench --estimate`: how honest the time estimates are. Runs one real audit (the audit
 * command's flags, into a temporary run folder) and sets each estimate it made against the time the
 * audit actually took, from the moment the estimate was given: the pre-run warm-up range, and the
 * time-left range the progress line showed at 5%, 10%, 25% and 50% of the run. Target (issue
 * tracker): the upper end within +25% / −10% of the actual time.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AuditProgress } from '../audit/runner';
import type { AuditEstimate } from '../audit/runner';
import { formatDuration } from '../audit/runner';
import { prepareAuditJob } from '../service';
import { AUDIT_FLAGS, optionsFromFlags } from '../service';
import { UsageError } from '../cli/command';
import { parseFlags } from '../cli/flags';
import { writeRandomQwen05bModel } from './randomBenchModel';

/** Where in the run (share of its actual time) the live estimate is read. */
const CHECKPOINTS = [0.05, 0.1, 0.25, 0.5];

export interface EstimateCheck {
  /** When the estimate was read, seconds after the audit started (0: the pre-run estimate). */
  atSeconds: number;
  leastSeconds: number;
  mostSeconds: number;
  /** Each end over the time actually left then (1 = exact). */
  leastRatio: number;
  mostRatio: number;
  basis: string;
  /** The most the repair scan could add, stated apart while its share is not measured (timeLeft.ts). */
  repairMostSeconds?: number;
}

export interface EstimateFigures {
  model: string;
  questions: number;
  actualSeconds: number;
  checks: EstimateCheck[];
}

export async function benchEstimate(args: string[]): Promise<number> {
  const values = parseFlags(args, { model: { type: 'string' }, 'random-qwen-0.5b': { type: 'boolean' }, 'random-dir': { type: 'string' }, json: { type: 'boolean' }, ...AUDIT_FLAGS });
  if (!values.model === !values['random-qwen-0.5b']) throw new UsageError('bench --estimate: expected exactly one of --model DIR or --random-qwen-0.5b');
  if (!values.data) throw new UsageError('bench --estimate: --data: expected a benchmark file (the audit whose estimates are checked)');
  const log = (m: string) => process.stderr.write(`bench: ${m}\n`);
  const modelDir = values.model ?? writeRandomQwen05bModel(values['random-dir'] ?? path.join(os.tmpdir(), 'reach-audit-qwen05b-random'), log);
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-bench-estimate-'));
  const { out: _out, resume: _resume, ...options } = optionsFromFlags(values);
  try {
    const job = await prepareAuditJob({ options, modelDir, workspace, name: 'estimate', warn: log });
    let estimate: { at: number; e: AuditEstimate } | undefined;
    const progress: { at: number; p: AuditProgress }[] = [];
    await job.run({
      onEstimate: (e) => {
        estimate = { at: performance.now(), e };
        log(`estimate: ${formatDuration(e.seconds.least * 1000)}–${formatDuration(e.seconds.most * 1000)}`);
      },
      onProgress: (p) => progress.push({ at: performance.now(), p }),
    });
    const end = performance.now();
    if (!estimate) throw new UsageError('bench --estimate: the audit gave no estimate (fewer than 2 questions, or every one skipped)');
    const start = estimate.at;
    const actual = (end - start) / 1000;
    const check = (atMs: number, least: number, most: number, basis: string, repairMost?: number): EstimateCheck => {
      const left = (end - atMs) / 1000;
      return { atSeconds: (atMs - start) / 1000, leastSeconds: least, mostSeconds: most, leastRatio: least / left, mostRatio: most / left, basis, ...(repairMost !== undefined ? { repairMostSeconds: repairMost } : {}) };
    };
    const checks = [check(start, estimate.e.seconds.least, estimate.e.seconds.most, 'pre-run warm-up')];
    for (const share of CHECKPOINTS) {
      const at = start + share * (end - start);
      const seen = progress.filter((x) => x.at <= at && x.p.remainingMs !== undefined).at(-1);
      if (seen) checks.push(check(seen.at, (seen.p.remainingLeastMs ?? seen.p.remainingMs!) / 1000, seen.p.remainingMs! / 1000, seen.p.remainingBasis ?? '', seen.p.remainingRepairMostMs !== undefined ? seen.p.remainingRepairMostMs / 1000 : undefined));
    }
    const figures: EstimateFigures = { model: modelDir, questions: job.selection.questions.length, actualSeconds: actual, checks };
    process.stdout.write(values.json ? JSON.stringify(figures, null, 2) + '\n' : estimateBenchText(figures).join('\n') + '\n');
    return 0;
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

export function estimateBenchText(f: EstimateFigures): string[] {
  const pct = (r: number) => `${r >= 1 ? '+' : ''}${((r - 1) * 100).toFixed(0)}%`;
  return [
    `model            ${f.model}`,
    `questions        ${f.questions}; the audit took ${formatDuration(f.actualSeconds * 1000)} (${f.actualSeconds.toFixed(1)} s) after its estimate`,
    'estimate of the time left (its ends against the time actually left then; target: upper end within +25% / −10%)',
    ...f.checks.map(
      (c) =>
        `  at ${formatDuration(c.atSeconds * 1000).padStart(6)}  ${formatDuration(c.leastSeconds * 1000)}–${formatDuration(c.mostSeconds * 1000)}` +
        `  lower ${pct(c.leastRatio)}, upper ${pct(c.mostRatio)}${c.mostRatio <= 1.25 && c.mostRatio >= 0.9 ? '' : '  (outside the target)'}` +
        `${c.repairMostSeconds !== undefined ? ` (+ up to ${formatDuration(c.repairMostSeconds * 1000)} if the repair scan runs on the open questions)` : ''}  — ${c.basis}`,
    ),
  ];
}
