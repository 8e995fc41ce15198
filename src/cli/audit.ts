/**
 * `reach-audit audit`: realized, reachable (sample / routes / search), answer-blind and repaired,
 * question by question, into a run folder. Progress on stderr; the summary on stdout.
 */
import type { Command } from './command';
import { UsageError } from './command';
import { AUDIT_FLAGS, AUDIT_FLAGS_HELP, defaultRunName } from '../service';
import { interruptSignal, prepareAudit } from './auditRun';
import { parseFlags } from './flags';
import { formatSummary } from '../audit/report';
import { explainFolder, explainText } from './explain';

const help = [
  'Usage: reach-audit audit --model DIR --data FILE [options]',
  '',
  'Audits a model on a benchmark question by question: realized (the deployment answers right),',
  'reachable (a probe finds the answer within its budget), answer-blind selection, and — with',
  '--repair — which silenced MLP block repairs the failure set. Writes manifest.json,',
  'records.jsonl (one line per finished question) and summary.json to the run folder.',
  'Ctrl-C stops after the current batch and keeps every finished question; --resume continues.',
  '',
  'Options:',
  '  --model DIR              Hugging Face model folder',
  ...AUDIT_FLAGS_HELP,
  '  --explain                after the audit, run `reach-audit explain` on the run: where each',
  '                           failure-set question\'s answer is lost, per block (mechanism.jsonl)',
  '  --json                   print the summary as JSON on stdout',
  '',
  'Example:',
  '  reach-audit audit --model ./base --data test.jsonl --probe sample:16 --probe routes:16 \\',
  '    --probe search:16 --select majority,confidence,global-route --repair',
].join('\n');

export const auditCommand: Command = {
  help,
  async run(args) {
    const values = parseFlags(args, { model: { type: 'string' }, json: { type: 'boolean' }, explain: { type: 'boolean' }, ...AUDIT_FLAGS });
    if (!values.model) throw new UsageError('--model: expected a model folder');
    if (!values.data) throw new UsageError('--data: expected a benchmark file (JSONL or JSON)');
    const name = values.name ?? defaultRunName(values.model, values.data);
    const start = await prepareAudit({ values, modelDir: values.model, name, folder: values.out, label: name });
    let folder = values.out ?? '';
    const interrupt = interruptSignal(() => `resume with --resume${folder ? ` --out ${folder}` : ''}`);
    try {
      const result = await start(interrupt.signal);
      folder = result.folder;
      if (result.stopped || !result.summary) {
        process.stderr.write(`reach-audit: stopped with ${result.records.length} questions finished in ${result.folder}; continue with: reach-audit audit ... --resume --out ${result.folder}\n`);
        return 130;
      }
      // The explain account reloads the model: the audit's engine is gone once the job returns.
      const explained = values.explain ? await explainFolder({ folder: result.folder, modelDir: values.model, dataFile: values.data, cacheDir: values['cache-dir'] }) : undefined;
      if (values.json) process.stdout.write(JSON.stringify({ run: result.folder, summary: result.summary, ...(explained ? { mechanism: explained.summary } : {}) }, null, 2) + '\n');
      else {
        process.stdout.write(formatSummary(result.summary, `Reach Audit — ${name}`) + '\n');
        if (explained) process.stdout.write('\n' + explainText(explained, true));
      }
      return 0;
    } finally {
      interrupt.release();
    }
  },
};
