/**
 * Control sequences from a dataset (its file name, its ids) and from a run name never reach the
 * terminal raw: the CLI writes them as \uXXXX escapes in warnings, errors, progress and the text
 * report, and --json output still parses to the original text.
 */
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';
import { escapeControls } from '../../src/cli/terminalText';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-terminal-'));
const model = path.join(root, 'model');
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
/** OSC title change + BEL, CSI colour, C1 CSI, a carriage return that would overwrite the line, a bidi override. */
const HOSTILE = '\u001b]0;pwned\u0007\u001b[31mred\u009b2J\rover\u202eevil';
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function run(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('terminal output from hostile text', () => {
  const data = path.join(root, `q${HOSTILE}.jsonl`);
  before(() => {
    assert.ok(fs.existsSync(cli), `${cli} is missing: run npm run build first`);
    writeRandomModel(model, SMALL_SPECS.llama);
    const id = `dup${HOSTILE}`;
    const lines = [
      JSON.stringify({ id, question: `What is 1 + 1? ${HOSTILE}`, answer: '#### 2' }),
      JSON.stringify({ id, question: 'What is 2 + 2?', answer: '#### 4' }),
      JSON.stringify({ id: 'ok', question: 'What is 3 + 3?', answer: '#### 6' }),
    ];
    fs.writeFileSync(data, lines.join('\n') + '\n');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('escapes control characters in warnings, the run name, the report and errors', () => {
    const out = path.join(root, 'run');
    const r = run(['audit', '--model', model, '--data', data, '--probe', 'sample:1', '--max-new-tokens', '2', '--threads', '1', '--out', out, '--name', `n${HOSTILE}`]);
    assert.equal(r.code, 0, r.stderr);
    for (const [stream, text] of [['stdout', r.stdout], ['stderr', r.stderr]]) assert.doesNotMatch(text, RAW, `${stream} carries no raw control character`);
    assert.ok(r.stderr.includes(`${escapeControls(data)}:2: duplicate question id`), r.stderr);
    assert.ok(r.stdout.includes(escapeControls(`n${HOSTILE}`)), 'the run name shows, escaped');

    const report = run(['report', out]);
    assert.equal(report.code, 0, report.stderr);
    assert.doesNotMatch(report.stdout + report.stderr, RAW);
    const json = run(['report', out, '--json']);
    assert.doesNotMatch(json.stdout, RAW);
    assert.ok(JSON.parse(json.stdout), '--json output still parses');
    const manifest = run(['report', path.join(root, `missing${HOSTILE}`)]);
    assert.equal(manifest.code, 2);
    assert.doesNotMatch(manifest.stderr, RAW);
    assert.ok(manifest.stderr.includes(escapeControls(`missing${HOSTILE}`)));
  });

  it('escapeControls keeps newlines and tabs and writes the rest as JSON-compatible escapes', () => {
    assert.equal(escapeControls('a\tb\nc\u001bd\u009be\u202ef\r'), 'a\tb\nc\\u001bd\\u009be\\u202ef\\u000d');
    assert.equal(JSON.parse(escapeControls(JSON.stringify({ s: `x\u009b\u202ey` }))).s, `x\u009b\u202ey`);
  });
});
