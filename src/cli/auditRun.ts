/**
 * Runs one audit job from command-line flags with the terminal's conventions: warnings and
 * progress on stderr, Ctrl-C handling. Shared by `audit` and `compare --base-model/--tuned-model`;
 * the job itself (checks, run folder, resume rules, the audit) is the engine service's.
 */
import { warn } from './command';
import { estimateLines, progressReporter, formatDuration } from './progress';
import { optionsFromFlags, type AuditFlagValues, type AuditOptions, prepareAuditJob, type AuditJobResult } from '../service';
import { writeControl } from './terminalText';

export interface AuditPlan {
  values: AuditFlagValues;
  modelDir: string;
  /** Run name (folder name part). */
  name: string;
  /** Explicit run folder (--out, or a compare sub-folder). */
  folder?: string;
  label: string;
  /** With --resume, start a new run when there is none to resume (compare resumes two runs, one may not have started). */
  resumeOrStart?: boolean;
  /** Where warnings go (default: stderr). */
  warn?: (message: string) => void;
  /** The question count the run's settings are decided for, when not the selection's (verify's sample of a larger run). */
  poolQuestions?: number;
}

/** An audit checked and its run folder chosen; calling it loads the model and audits in this process. */
export interface PreparedCliAudit {
  (signal: AbortSignal): Promise<AuditJobResult>;
  /** The same audit's options for an engine process: the run folder, run name and resume as decided here. */
  readonly options: AuditOptions & { out: string; name: string; resume: boolean };
  /** The dataset's sha256 as read (verify checks it against the run's before the model loads). */
  readonly datasetHash: string;
}

/** Checks everything that does not need the model; returns a function that runs the audit. */
export async function prepareAudit(plan: AuditPlan): Promise<PreparedCliAudit> {
  // The run folder is the plan's: --out for audit, a sub-folder of it for compare.
  const { out: _out, ...given } = optionsFromFlags(plan.values);
  const options = plan.folder !== undefined ? { ...given, out: plan.folder } : given;
  const job = await prepareAuditJob({
    options,
    modelDir: plan.modelDir,
    workspace: process.cwd(),
    name: plan.name,
    resumeOrStart: plan.resumeOrStart,
    ...(plan.poolQuestions !== undefined ? { poolQuestions: plan.poolQuestions } : {}),
    warn: plan.warn ?? warn,
    resumeCommand: (folder) => resumeCommand(folder, process.argv.slice(2)),
  });
  const decided = { ...options, out: job.folder, name: job.name, resume: job.resume };
  return Object.assign(async (signal: AbortSignal) => {
    const progress = progressReporter(plan.label);
    const tty = process.stderr.isTTY;
    const result = await job.run({
      signal,
      onModelProgress: tty ? (m) => (writeControl(process.stderr, '\r\x1b[2K'), process.stderr.write(`${plan.label}: ${m}`)) : undefined,
      onModelReady: tty ? () => writeControl(process.stderr, '\r\x1b[2K') : undefined,
      onProgress: (p) => progress.update(p),
      onEstimate: (e) => process.stderr.write(estimateLines(plan.label, e).join('\n') + '\n'),
      onKvMemory: (line) => process.stderr.write(`${plan.label}: ${line}\n`),
      onKvCacheFidelity: (line) => process.stderr.write(`${plan.label}: ${line}\n`),
    });
    progress.done();
    const stages = Object.entries(result.timings).map(([s, t]) => `${s} ${t.generations} gen, ${t.tokens} tokens`);
    process.stderr.write(`${plan.label}: model load ${formatDuration(result.loadMs)}; ${stages.join(', ')}\n`);
    process.stderr.write(`${plan.label}: run folder ${result.folder}\n`);
    return result;
  }, { options: decided, datasetHash: job.dataset.contentHash });
}

/** A word as a POSIX shell reads it back. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command line that continues this run: this one plus --resume (and --out for an audit that had none). */
export function resumeCommand(folder: string, argv: readonly string[]): string {
  const args = argv.filter((a) => a !== '--resume');
  const hasOut = args.some((a) => a === '--out' || a.startsWith('--out='));
  const out = args[0] === 'audit' && !hasOut ? ['--out', folder] : [];
  return ['reach-audit', ...args, '--resume', ...out].map(shellWord).join(' ');
}

/** An AbortSignal tied to Ctrl-C: the first stops after the current batch (finished questions are kept), the second exits at once. */
export function interruptSignal(hint: () => string): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) {
      process.stderr.write('\nreach-audit: stopped. Every finished question is on disk.\n');
      process.exit(130);
    }
    process.stderr.write(`\nreach-audit: stopping — finished questions are kept (${hint()}). Press Ctrl-C again to quit now.\n`);
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  return { signal: controller.signal, release: () => process.off('SIGINT', onSigint) };
}
