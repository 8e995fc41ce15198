/**
 * `reach-audit verify RUN`: audits a seeded sample of a finished run's questions again, from its
 * manifest alone, into a scratch folder, and compares their records byte for byte with the run's.
 * The run folder is only read. Exit 0: reproduced; 1: records differ; 2: bad input (a moved or
 * changed model or dataset, an imported run, a manifest the command cannot carry).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Command } from './command';
import { UsageError } from './command';
import { parseFlagsAndFolders, parseWholeNumber } from './flags';
import { prepareAudit, interruptSignal } from './auditRun';
import { AUDIT_FLAGS, DEFAULT_VERIFY_QUESTIONS, DEFAULT_VERIFY_SEED, planVerify, verifyOutcome, verifyText } from '../service';

const help = [
  'Usage: reach-audit verify RUN [--questions N] [--seed S] [options]',
  '',
  "Audits a seeded sample of a finished run's questions again from its manifest alone (model and",
  'dataset checked by content hash, the same deployment, probes, budgets, seeds and grading) and',
  "compares the records byte for byte with the run's records.jsonl. On the numerics platform the",
  'run was made on (manifest engine.numerics) they must be identical; on another, it names which',
  'fields differ and by how much (outputs, grades, token counts, largest log-prob difference).',
  'The run folder is only read; the re-run goes to a scratch folder that is removed afterwards.',
  'Exit status: 0 reproduced, 1 records differ, 2 bad input.',
  '',
  'Options:',
  `  --questions N   questions to audit again (default ${DEFAULT_VERIFY_QUESTIONS}; more than the run has: all)`,
  `  --seed S        seed of the sample (default ${DEFAULT_VERIFY_SEED}): another seed draws other questions`,
  '  --model DIR     the run\'s model folder where it is now (it moved); must have the same content hash',
  '  --data FILE     the run\'s dataset where it is now; must have the same content hash',
  '  --threads N     engine threads (scheduling only: the records do not depend on it)',
  '  --cache-dir DIR graph cache folder',
  '  --api-key-env VAR  a remote run\'s server key, read from this environment variable',
  '  --keep          keep the scratch run folder and print where it is',
  '  --json          print the outcome as JSON on stdout',
].join('\n');

export const verifyCommand: Command = {
  help,
  async run(args) {
    const { values, positionals } = parseFlagsAndFolders(args, {
      questions: { type: 'string' },
      seed: { type: 'string' },
      model: { type: 'string' },
      data: { type: 'string' },
      threads: { type: 'string' },
      'cache-dir': { type: 'string' },
      'api-key-env': { type: 'string' },
      keep: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('expected one run folder: reach-audit verify RUN [--questions N]');
    const plan = await planVerify({
      folder: path.resolve(positionals[0]),
      questions: parseWholeNumber(values.questions, '--questions', 1),
      seed: parseWholeNumber(values.seed, '--seed'),
      ...(values.model !== undefined ? { model: values.model } : {}),
      ...(values.data !== undefined ? { data: values.data } : {}),
    });
    const extra = [
      ...(values.threads !== undefined ? ['--threads', values.threads] : []),
      ...(values['cache-dir'] !== undefined ? ['--cache-dir', values['cache-dir']] : []),
      ...(values['api-key-env'] !== undefined ? ['--api-key-env', values['api-key-env']] : []),
    ];
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-verify-'));
    const againFolder = path.join(scratch, 'run');
    const label = `verify ${path.basename(plan.folder)}`;
    process.stderr.write(`${label}: auditing ${plan.ids.length} of ${plan.ofRecords} questions again (seed ${plan.seed}): ${plan.ids.join(', ')}\n`);
    const interrupt = interruptSignal(() => 'nothing of the run is changed');
    try {
      const { values: auditValues } = parseFlagsAndFolders([...plan.auditArgs, ...extra], { model: { type: 'string' }, ...AUDIT_FLAGS });
      const start = await prepareAudit({ values: auditValues, modelDir: plan.modelDir, name: plan.manifest.name, folder: againFolder, label, poolQuestions: plan.poolQuestions });
      if (start.datasetHash !== plan.manifest.dataset.contentHash) {
        throw new UsageError(
          `${plan.dataPath} is not the run's dataset: its content hash ${start.datasetHash.slice(0, 12)}… differs from the run's ${plan.manifest.dataset.contentHash.slice(0, 12)}…; pass --data FILE with the file the run audited`,
        );
      }
      const result = await start(interrupt.signal);
      if (result.stopped) {
        process.stderr.write('reach-audit: verify stopped before the sample finished; nothing was compared\n');
        return 130;
      }
      const outcome = verifyOutcome(plan, againFolder);
      if (values.json) process.stdout.write(JSON.stringify(outcome, null, 2) + '\n');
      else process.stdout.write(verifyText(outcome).join('\n') + '\n');
      return outcome.reproduced ? 0 : 1;
    } finally {
      interrupt.release();
      if (values.keep) process.stderr.write(`${label}: the re-run is kept in ${againFolder}\n`);
      else fs.rmSync(scratch, { recursive: true, force: true });
    }
  },
};
