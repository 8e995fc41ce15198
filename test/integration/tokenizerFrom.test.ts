/**
 * `--tokenizer-from DIR` with the built CLI (issue 39): a checkpoint saved without tokenizer files
 * (as a Trainer saves them) is refused with the flag named, audited with the base's tokenizer when
 * the flag names it (the same records as the base folder itself gives, the folder recorded in the
 * manifest and the rerun command), a resume with other tokenizer files is refused, bad folders are
 * named, and a watch takes the flag for every checkpoint.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtCli, repoRoot, runCli } from '../support/cliRun';
import { validateStoredTrajectory } from '../../src/audit/store/runFileValidation';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-tokenizer-from-'));
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const base = path.join(repoRoot, 'media/demo/base');
const data = path.join(repoRoot, 'media/demo/data/arith-test.jsonl');
const ckpt = path.join(root, 'checkpoint-100');
const FLAGS = ['--data', data, '--limit', '3', '--probe', 'sample:2', '--max-new-tokens', '16', '--threads', '1'];
const cli = (args: string[]) => runCli(args, { cwd: root, env });

/** A failure in one clear line: exit 2, no stack trace. */
function assertRefused(r: { code: number | null; stderr: string }, pattern: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
}

/** A copy of the base as a Trainer saves a checkpoint: config and weights, no tokenizer files. */
function trainerCheckpoint(dir: string): void {
  fs.cpSync(base, dir, { recursive: true });
  for (const f of ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json']) fs.rmSync(path.join(dir, f), { force: true });
}

const manifestOf = (folder: string) => JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8'));

describe('--tokenizer-from DIR', () => {
  before(() => {
    assert.ok(fs.existsSync(builtCli), `${builtCli} is missing: run npm run build first`);
    trainerCheckpoint(ckpt);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('a checkpoint without tokenizer files is refused with the flag named; bad folders are named', () => {
    const out = path.join(root, 'refused');
    assertRefused(cli(['audit', '--model', ckpt, ...FLAGS, '--out', out]), /checkpoint-100\/tokenizer\.json: not found; .*name the folder that holds it with --tokenizer-from DIR/);
    assertRefused(cli(['audit', '--model', ckpt, ...FLAGS, '--out', out, '--tokenizer-from', path.join(root, 'nowhere')]), /--tokenizer-from \S*nowhere: no such folder; expected a folder holding the model's tokenizer\.json/);
    assertRefused(cli(['audit', '--model', ckpt, ...FLAGS, '--out', out, '--tokenizer-from', ckpt]), /--tokenizer-from \S*checkpoint-100: it holds no tokenizer\.json/);
    assertRefused(cli(['audit', '--model', ckpt, ...FLAGS, '--out', out, '--tokenizer-from', path.join(base, 'config.json')]), /config\.json: not a folder/);
    // A tokenizer whose ids run past the model's embedding rows.
    const wide = path.join(root, 'wide-tokenizer');
    fs.cpSync(base, wide, { recursive: true });
    const tokenizerFile = path.join(wide, 'tokenizer.json');
    const tokenizer = JSON.parse(fs.readFileSync(tokenizerFile, 'utf8'));
    const vocabSize = JSON.parse(fs.readFileSync(path.join(base, 'config.json'), 'utf8')).vocab_size as number;
    tokenizer.added_tokens.push({ id: vocabSize + 5, content: '<|extra|>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
    fs.writeFileSync(tokenizerFile, JSON.stringify(tokenizer));
    assertRefused(
      cli(['audit', '--model', ckpt, ...FLAGS, '--out', out, '--tokenizer-from', wide]),
      new RegExp(`wide-tokenizer/tokenizer\\.json: the tokenizer has token ids up to ${vocabSize + 5}, but \\S*checkpoint-100/config\\.json has vocab_size ${vocabSize} \\(the embedding's rows\\)`),
    );
    assert.ok(!fs.existsSync(out), 'nothing was written');
    // The engine commands take it too.
    assertRefused(cli(['generate', '--model', ckpt, '--prompt', '2+3?', '--max-new-tokens', '2']), /--tokenizer-from DIR/);
    const generated = cli(['generate', '--model', ckpt, '--tokenizer-from', base, '--prompt', '2+3?', '--max-new-tokens', '2', '--threads', '1']);
    assert.equal(generated.code, 0, generated.stderr);
  });

  it("with the base's folder: the base's records, the folder recorded, in the rerun command, and a resume with other tokenizer files refused", () => {
    const borrowed = path.join(root, 'borrowed');
    const own = path.join(root, 'own');
    const a = cli(['audit', '--model', ckpt, '--tokenizer-from', base, ...FLAGS, '--out', borrowed]);
    assert.equal(a.code, 0, a.stderr);
    const b = cli(['audit', '--model', base, ...FLAGS, '--out', own]);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(fs.readFileSync(path.join(borrowed, 'records.jsonl'), 'utf8'), fs.readFileSync(path.join(own, 'records.jsonl'), 'utf8'), 'the same weights and tokenizer give the same records');
    assert.equal(manifestOf(borrowed).model.tokenizerFrom.path, base);
    assert.match(manifestOf(borrowed).model.tokenizerFrom.contentHash, /^[0-9a-f]{64}$/);
    assert.equal(manifestOf(own).model.tokenizerFrom, undefined, "a model with its own tokenizer records none (its manifest reads as before)");
    const report = cli(['report', borrowed]);
    assert.equal(report.code, 0, report.stderr);
    assert.ok(report.stdout.includes(`--model ${ckpt} --tokenizer-from ${base} --data`), report.stdout);

    // The same files in another folder resume; other tokenizer files (another chat template) do not.
    const moved = path.join(root, 'moved-base');
    fs.cpSync(base, moved, { recursive: true });
    const resumed = cli(['audit', '--model', ckpt, '--tokenizer-from', moved, ...FLAGS, '--out', borrowed, '--resume']);
    assert.equal(resumed.code, 0, resumed.stderr);
    const config = path.join(moved, 'tokenizer_config.json');
    fs.writeFileSync(config, JSON.stringify({ ...JSON.parse(fs.readFileSync(config, 'utf8')), chat_template: "{% for m in messages %}{{ m['content'] }}{% endfor %}" }));
    assertRefused(cli(['audit', '--model', ckpt, '--tokenizer-from', moved, ...FLAGS, '--out', borrowed, '--resume']), /tokenizer: the run has "--tokenizer-from with tokenizer files of hash [0-9a-f]{64}", this command gives "--tokenizer-from with tokenizer files of hash [0-9a-f]{64}"/);
    assertRefused(cli(['audit', '--model', ckpt, ...FLAGS, '--out', borrowed, '--resume']), /--tokenizer-from DIR/);
  });

  it('a watch audits checkpoints saved without tokenizer files with the folder given', () => {
    const watched = path.join(root, 'run');
    trainerCheckpoint(path.join(watched, 'checkpoint-5'));
    const out = path.join(root, 'watch-out');
    const r = cli(['trajectory', '--watch', watched, ...FLAGS, '--tokenizer-from', base, '--poll', '0.2', '--until-idle', '1', '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /skipped/);
    const file = path.join(out, 'trajectory.json');
    assert.deepEqual(validateStoredTrajectory(JSON.parse(fs.readFileSync(file, 'utf8')), file).points.map((p) => p.label), ['checkpoint-5']);
    assert.equal(manifestOf(path.join(out, 'checkpoint-5')).model.tokenizerFrom.path, base);
  });
});
