/**
 * Remote servers from VS Code, in a real VS Code: a `reach-audit serve --http` on the demo model
 * that requires a token; the token set with Reach Audit: Set Server API Key… (typed into its
 * password box by the launcher); the servers and the backend from the settings; an audit run from
 * the command that gives the records of the same audit on the extension's own engine, byte for
 * byte, with the estimate and the progress measured on the server. The key is in no file under
 * the run folder, in none of VS Code's logs (the "Reach Audit" output channel's file among them)
 * and in no settings.json; cleared, the server refuses the next audit and its notification offers
 * Set Server API Key… beside Show Log.
 *
 * Its audits write outside .reach-audit/runs, so the other files see the workspace's runs unchanged.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReachAuditApi } from '../../src/extension/extension';
import type { CommandResult } from '../../src/extension/commands/auditCommands';
import { startHttpServe } from '../support/cliRun';
import { pageProbesAvailable, quickInputType } from './pageProbe';
import { clearNotifications, renderedNotification } from './notifications';
import { workspaceFolder, freshSuiteFolder, installedExtension, manifestOf } from './suiteFixtures';

/** Long and distinctive, so finding it anywhere means it was written there. */
const KEY = 'sk-suite-remote-8c4e1b7f29d04a6b-never-on-disk';
// With 8 + 8 attempts of up to 64 tokens each, the audit outlasts the 5 s the engine times before it
// trusts its speed (MIN_TIMED_MS) even at 900 tokens/s, so a time left shows.
const QUESTIONS = 12;

function filesUnder(folder: string): string[] {
  if (!fs.existsSync(folder)) return [];
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(folder, e.name)) : e.isFile() ? [path.join(folder, e.name)] : []));
}

function holdingKey(files: readonly string[]): string[] {
  return files.filter((f) => fs.readFileSync(f).includes(KEY));
}

suite('Remote servers from VS Code: the key in secret storage, the audit on a server', function () {
  this.timeout(300_000);
  let api: ReachAuditApi;
  let root: string;
  let workspace: string;
  let model: string;
  let data: string;
  let server: { url: string; stop(): void } | undefined;
  const keyFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-key-')), 'key.txt');
  const config = () => vscode.workspace.getConfiguration('reachAudit');
  const ws = vscode.ConfigurationTarget.Workspace;
  const runs: Partial<Record<'remote' | 'local', string>> = {};
  const messages: string[] = [];
  const estimates: string[] = [];
  /** The "Reach Audit" output channel's file, once found among VS Code's logs. */
  let channel: string | undefined;

  suiteSetup(async function () {
    if (!pageProbesAvailable) this.skip(); // the key is typed into VS Code's own input box by the launcher
    workspace = workspaceFolder();
    root = freshSuiteFolder('remote-suite');
    const { extension, demo } = installedExtension();
    model = path.join(demo, 'base');
    data = path.join(root, 'arith.jsonl');
    const lines = fs.readFileSync(path.join(demo, 'data', 'arith-test.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '');
    fs.writeFileSync(data, lines.slice(0, QUESTIONS).join('\n') + '\n');
    fs.writeFileSync(keyFile, KEY);
    server = await startHttpServe(['--model', model, '--threads', '1', '--token-env', 'RA_SUITE_SERVER_TOKEN'], {
      ...process.env,
      RA_SUITE_SERVER_TOKEN: KEY,
      REACH_AUDIT_CACHE: path.join(root, 'serve-cache'),
    });
    api = await extension.activate();
  });

  suiteTeardown(async () => {
    server?.stop();
    fs.rmSync(path.dirname(keyFile), { recursive: true, force: true });
    if (!pageProbesAvailable) return;
    for (const key of ['backend', 'baseUrls', 'concurrency', 'maxNewTokens', 'repair']) await config().update(key, undefined, ws);
    await vscode.commands.executeCommand('reachAudit.clearServerApiKey');
  });

  const audit = (name: string) =>
    vscode.commands.executeCommand<CommandResult>('reachAudit.runAudit', {
      model,
      data,
      probes: ['sample:8', 'routes:8'],
      threads: 1,
      batch: 4,
      name,
      out: path.join(root, 'runs', name),
      cacheDir: path.join(root, 'cache'),
    });

  test('Set Server API Key… asks in a password box and keeps the key in secret storage', async () => {
    const setting = vscode.commands.executeCommand<boolean>('reachAudit.setServerApiKey');
    const typed = await quickInputType(keyFile);
    assert.equal(typed.password, true, 'the key is typed into a password box');
    assert.equal(typed.typed, KEY.length);
    assert.equal(await setting, true);
  });

  test('an audit on the server from the settings: its manifest names the server, the estimate and progress come from its measured speed', async () => {
    await config().update('backend', 'openai', ws);
    await config().update('baseUrls', [server!.url], ws);
    await config().update('concurrency', 2, ws);
    await config().update('repair', true, ws);
    await config().update('maxNewTokens', 64, ws);
    const listener = api.session.listen({ onProgressMessage: (m) => messages.push(m), onEstimate: (m) => estimates.push(m) });
    let result: CommandResult;
    try {
      result = await audit('remote');
    } finally {
      listener.dispose();
    }
    assert.equal(result.how, 'done', result.message);
    runs.remote = result.runDir;
    const backend = manifestOf(result.runDir!).backend;
    assert.ok(backend, 'the manifest records the backend');
    // The server requires the key for /health's details and every completion: these prove it was sent.
    assert.deepEqual([backend.backend, backend.baseUrls, backend.layerAccess, backend.seedHonoured, backend.concurrency], ['openai', [server!.url], true, true, 2]);
    assert.equal(estimates.length, 1, JSON.stringify(estimates));
    assert.match(estimates[0], /Estimate: about .* tokens\/s \(measured warm-up/);
    assert.ok(messages.some((m) => m.includes(`connecting to ${server!.url}`)), messages.slice(0, 4).join('\n'));
    const timeLeft = new RegExp(`^\\d+/${QUESTIONS} questions( · [\\d,]+ tokens)? · [\\d.]+ tokens/s · (\\d+h\\d\\dm|\\d+m\\d\\ds|\\d+s) left$`);
    assert.ok(messages.some((m) => timeLeft.test(m)), `a time left from the server's speed:\n${messages.slice(-8).join('\n')}`);
  });

  test('the same audit on the extension\'s own engine gives the same records, byte for byte', async () => {
    assert.ok(runs.remote, 'the remote audit ran');
    // Back to the local engine; the base URLs stay in the settings and are not sent.
    await config().update('backend', 'local', ws);
    const result = await audit('local');
    assert.equal(result.how, 'done', result.message);
    runs.local = result.runDir;
    assert.equal(manifestOf(result.runDir!).backend, undefined);
    for (const file of ['records.jsonl', 'summary.json', 'failure-set.jsonl']) {
      assert.equal(fs.readFileSync(path.join(runs.remote, file), 'utf8'), fs.readFileSync(path.join(result.runDir!, file), 'utf8'), file);
    }
  });

  test('the key is in no file of the run folder, none of VS Code\'s logs (the output channel\'s included) and no settings.json', async () => {
    assert.ok(runs.remote, 'the remote audit ran');
    const runFiles = filesUnder(runs.remote);
    assert.ok(runFiles.some((f) => f.endsWith('records.jsonl')));
    assert.deepEqual(holdingKey(runFiles), []);

    const userData = process.env.REACH_AUDIT_USER_DATA_DIR;
    assert.ok(userData, 'the launcher names VS Code\'s user data folder');
    const logs = filesUnder(path.join(userData, 'logs'));
    // The output channel is written to a file among the logs: wait until it holds this run's lines.
    for (let waited = 0; !channel && waited < 20_000; waited += 250) {
      channel = filesUnder(path.join(userData, 'logs')).find((f) => /Reach Audit\.log$/.test(f) && fs.readFileSync(f, 'utf8').includes(`"out":"${path.join(root, 'runs', 'remote')}"`));
      if (!channel) await new Promise((r) => setTimeout(r, 250));
    }
    assert.ok(channel, `the "Reach Audit" output channel's file among ${logs.length} log files`);
    const said = fs.readFileSync(channel, 'utf8');
    assert.match(said, /server API key stored in VS Code's secret storage/);
    assert.match(said, /"apiKeyEnv":"REACH_AUDIT_SERVER_API_KEY"/, 'the request names the variable');
    assert.deepEqual(holdingKey(filesUnder(path.join(userData, 'logs'))), []);

    const settingsFiles = [path.join(userData, 'User', 'settings.json'), path.join(workspace, '.vscode', 'settings.json')].filter((f) => fs.existsSync(f));
    const workspaceSettings = path.join(workspace, '.vscode', 'settings.json');
    assert.ok(fs.readFileSync(workspaceSettings, 'utf8').includes('"reachAudit.baseUrls"'), 'the settings this suite wrote are in the file checked');
    assert.deepEqual(holdingKey(settingsFiles), []);
  });

  test('Clear Server API Key: the next audit on the server goes without it, and the server refuses', async () => {
    assert.equal(await vscode.commands.executeCommand<boolean>('reachAudit.clearServerApiKey'), true);
    await config().update('backend', 'openai', ws);
    await config().update('repair', false, ws);
    await config().update('maxNewTokens', 8, ws);
    await clearNotifications();
    const result = await audit('cleared');
    assert.equal(result.how, 'failed');
    assert.match(result.message ?? '', /401/);
    assert.ok(!(result.message ?? '').includes(KEY));
    // The way forward beside the log (walkthrough 3, point 8).
    const shown = await renderedNotification('answered 401');
    assert.deepEqual(shown.buttons, ['Set Server API Key…', 'Show Log'], shown.message);
    // The engine child had the key in its environment: it was replaced by one without, quietly.
    assert.ok(channel, 'the output channel\'s file was found');
    let said = '';
    for (let waited = 0; !said.includes('failed (input)') && waited < 20_000; waited += 250) {
      said = fs.readFileSync(channel, 'utf8');
      if (!said.includes('failed (input)')) await new Promise((r) => setTimeout(r, 250));
    }
    assert.match(said, /server API key removed from VS Code's secret storage[\s\S]*the server API key or the cache folder changed: starting a new engine process/);
    assert.doesNotMatch(said, /exited unexpectedly/);
    assert.ok(!said.includes(KEY));
  });
});
