/**
 * Runs the VS Code suite (out/test/suite/index.js) inside a real VS Code: code-server serves the
 * workbench, Debian's chromium (driven by playwright-core) opens it with a test payload, and the
 * suite's output and exit code come back through the smoke-test driver's page hooks
 * (codeAutomationLog / codeAutomationExit). Offline: nothing is downloaded at test time.
 *
 *   node out/test/vscode/runInCodeServer.js            test the working tree (extensionDevelopmentPath)
 *   node out/test/vscode/runInCodeServer.js --vsix F   install F with `code-server --install-extension`
 *                                                      and test the installed copy
 *   node out/test/vscode/runInCodeServer.js --untrusted  workspace trust on and the folder not trusted:
 *                                                      runs only the untrusted-workspace suite
 * The suite can ask the launcher to inspect the rendered webview DOM or take screenshots
 * (pageProbes.ts); screenshots go to out/test/screenshots/<tree|vsix>/.
 * Environment: REACH_AUDIT_VSCODE_TIMEOUT_S (default 480), REACH_AUDIT_CHROMIUM (default
 * /usr/bin/chromium), REACH_AUDIT_KEEP_TEMP=1 keeps the temporary folders and logs; see
 * codeServerInstall.ts for where code-server is found.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { format } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { CODE_SERVER_VERSION, ensureCodeServer } from './codeServerInstall';
import { PageProbes } from './pageProbes';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
const SUITE_ENTRY = path.join(REPO_ROOT, 'out', 'test', 'suite', 'index.js');
const TIMEOUT_S = Number(process.env.REACH_AUDIT_VSCODE_TIMEOUT_S || 480);
const CHROMIUM = process.env.REACH_AUDIT_CHROMIUM || '/usr/bin/chromium';

// The workbench's own chatter, and what an offline machine says about the hosts it cannot reach;
// everything is still written to workbench.log in the temporary folder.
const NOISE = [
  /^\[(AgentHost|ChatModelSelection|AccountPolicyGate|reconnection-grace-time|Service Worker)[\]:]/,
  /^(Creating a socket|Resolving connection token|Resolved connection token|Updating additional builtin extensions cache)/,
  /^Creation of workbench contribution '.*' took \d+ms/,
  /ENOTFOUND/,
  /open-vsx\.org/,
  /telemetry/i,
  /authentication provider 'github'/,
];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitForHealth(port: number, exited: () => string | undefined, deadline: number): Promise<void> {
  for (;;) {
    const why = exited();
    if (why) throw new Error(`code-server exited before it was ready (${why})`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('code-server did not answer /healthz in time');
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * The process groups of `root` and all its descendants (from `ps`), without this process's own
 * group: exactly what the launcher started, nothing else.
 */
function descendantGroups(root: number): Set<number> {
  const listing = spawnSync('ps', ['-e', '-o', 'pid=,ppid=,pgid='], { encoding: 'utf8' }).stdout ?? '';
  const children = new Map<number, { pid: number; pgid: number }[]>();
  const groupOf = new Map<number, number>();
  for (const line of listing.split('\n')) {
    const [pid, ppid, pgid] = line.trim().split(/\s+/).map(Number);
    if (!pid) continue;
    groupOf.set(pid, pgid);
    children.set(ppid, [...(children.get(ppid) ?? []), { pid, pgid }]);
  }
  const groups = new Set<number>();
  const queue = [root];
  if (groupOf.has(root)) groups.add(groupOf.get(root)!);
  while (queue.length) {
    for (const child of children.get(queue.shift()!) ?? []) {
      groups.add(child.pgid);
      queue.push(child.pid);
    }
  }
  groups.delete(process.pid);
  try {
    groups.delete(Number(spawnSync('ps', ['-o', 'pgid=', '-p', String(process.pid)], { encoding: 'utf8' }).stdout.trim()));
  } catch {
    // keep the set as it is
  }
  return groups;
}

function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * The installed copy must carry what the bundles leave external: the CLI bundle starts, and
 * onnxruntime-node loads its native binding for this platform from the installed node_modules.
 */
function checkInstalledRuntime(root: string): void {
  const checks: [string, string[]][] = [
    ['dist/cli.js --help', [path.join(root, 'dist', 'cli.js'), '--help']],
    ['onnxruntime-node loads', ['-e', `require(${JSON.stringify(path.join(root, 'node_modules', 'onnxruntime-node'))})`]],
  ];
  for (const [what, args] of checks) {
    const result = spawnSync(process.execPath, args, { encoding: 'utf8', cwd: os.tmpdir() });
    if (result.status !== 0) throw new Error(`installed copy: ${what} failed (exit ${result.status}):\n${result.stderr}`);
    console.log(`[vscode] installed copy: ${what}: ok`);
  }
}

function parseArgs(argv: string[]): { vsix?: string; untrusted: boolean } {
  const args: { vsix?: string; untrusted: boolean } = { untrusted: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--vsix' && argv[i + 1]) args.vsix = path.resolve(argv[++i]);
    else if (argv[i] === '--untrusted') args.untrusted = true;
    else throw new Error(`unknown argument '${argv[i]}'; usage: runInCodeServer.js [--vsix FILE] [--untrusted]`);
  }
  return args;
}

async function main(): Promise<number> {
  const { vsix, untrusted } = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const { node, entry } = ensureCodeServer(REPO_ROOT);
  const temp = mkdtempSync(path.join(os.tmpdir(), 'reach-audit-vscode-'));
  const dirs = Object.fromEntries(
    ['user-data', 'extensions', 'xdg-config', 'xdg-data', 'xdg-cache', 'browser-home', 'workspace', 'host'].map((name) => {
      const dir = path.join(temp, name);
      mkdirSync(dir, { recursive: true });
      return [name, dir];
    }),
  ) as Record<string, string>;
  const serverLog = path.join(temp, 'code-server.log');
  const env = {
    ...process.env,
    XDG_CONFIG_HOME: dirs['xdg-config'],
    XDG_DATA_HOME: dirs['xdg-data'],
    XDG_CACHE_HOME: dirs['xdg-cache'],
  };
  const baseArgs = ['--user-data-dir', dirs['user-data'], '--extensions-dir', dirs.extensions];

  let server: ChildProcess | undefined;
  let browser: Browser | undefined;
  let exitReason: string | undefined;
  let failed = true;
  const serverAlive = () => !!server?.pid && server.exitCode === null && server.signalCode === null;
  // Process groups of everything code-server started: it runs its server in a group of its own, so
  // ending the group of the process we spawned is not enough. Collected while the tree is intact.
  const serverGroups = new Set<number>();
  const collectGroups = () => {
    if (server?.pid) for (const group of descendantGroups(server.pid)) serverGroups.add(group);
  };
  const signalGroups = (signal: NodeJS.Signals | 0) => {
    for (const group of serverGroups) {
      try {
        process.kill(-group, signal);
      } catch {
        serverGroups.delete(group); // already gone
      }
    }
  };
  // Last resort, synchronous: whatever way this process ends, code-server does not outlive it.
  process.once('exit', () => {
    if (serverAlive()) collectGroups();
    signalGroups('SIGKILL');
  });
  const cleanup = async () => {
    // A browser that does not close in time must not hold up stopping the server.
    let browserTimer: NodeJS.Timeout | undefined;
    await Promise.race([
      browser?.close().catch(() => undefined),
      new Promise((r) => (browserTimer = setTimeout(r, 10_000))),
    ]);
    clearTimeout(browserTimer);
    if (serverAlive()) collectGroups();
    signalGroups('SIGTERM');
    for (let waited = 0; serverGroups.size > 0 && waited < 5000; waited += 100) {
      await new Promise((r) => setTimeout(r, 100));
      signalGroups(0); // signal 0 only checks that the group still exists
    }
    signalGroups('SIGKILL');
    if (process.env.REACH_AUDIT_KEEP_TEMP || failed) {
      console.log(`[vscode] logs kept in ${temp} (code-server.log, workbench.log)`);
    } else rmSync(temp, { recursive: true, force: true, maxRetries: 3 });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    void cleanup().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    let extensionDevelopmentPath = REPO_ROOT;
    let expectedRoot = REPO_ROOT;
    if (vsix) {
      console.log(`[vscode] code-server --install-extension ${path.relative(process.cwd(), vsix)}`);
      const install = spawnSync(node, [entry, ...baseArgs, '--install-extension', vsix], { env, encoding: 'utf8' });
      process.stdout.write(install.stdout ?? '');
      if (install.status !== 0) {
        throw new Error(`code-server --install-extension failed (exit ${install.status}):\n${install.stderr}`);
      }
      const installed = readdirSync(dirs.extensions).filter((d) => d.startsWith('reach-audit.reach-audit-'));
      if (installed.length !== 1) throw new Error(`expected one installed reach-audit in ${dirs.extensions}, found [${installed.join(', ')}]`);
      expectedRoot = path.join(dirs.extensions, installed[0]);
      checkInstalledRuntime(expectedRoot);
      // The test runner needs some extension in development; an empty one leaves the installed copy in charge.
      writeFileSync(
        path.join(dirs.host, 'package.json'),
        JSON.stringify({ name: 'suite-host', publisher: 'reach-audit-tests', version: '0.0.0', engines: { vscode: '*' } }),
      );
      extensionDevelopmentPath = dirs.host;
    }

    if (untrusted) {
      // Trust on, and no prompt: the folder opens in Restricted Mode, as a folder the user has not trusted.
      mkdirSync(path.join(dirs['user-data'], 'User'), { recursive: true });
      writeFileSync(
        path.join(dirs['user-data'], 'User', 'settings.json'),
        JSON.stringify({ 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never' }),
      );
    }

    const port = await freePort();
    const log = createWriteStream(serverLog);
    server = spawn(
      node,
      [
        entry,
        '--bind-addr', `127.0.0.1:${port}`,
        '--auth', 'none',
        '--disable-telemetry',
        '--disable-update-check',
        ...(untrusted ? [] : ['--disable-workspace-trust']),
        '--vscode-option', 'enable-smoke-test-driver',
        ...baseArgs,
      ],
      { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    server.stdout?.pipe(log);
    server.stderr?.pipe(log);
    server.once('exit', (code, signal) => {
      exitReason = `exit ${code ?? signal}`;
    });
    const deadline = started + TIMEOUT_S * 1000;
    await waitForHealth(port, () => exitReason, Math.min(deadline, Date.now() + 60_000));
    console.log(`[vscode] code-server ${CODE_SERVER_VERSION} up on 127.0.0.1:${port} after ${((Date.now() - started) / 1000).toFixed(1)} s`);

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync',
      ],
      env: { ...env, HOME: dirs['browser-home'] },
    });
    // Large enough for the panel's table and detail pane side by side in the screenshots.
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    const probes = new PageProbes(page, dirs.workspace, path.join(REPO_ROOT, 'out', 'test', 'screenshots', vsix ? 'vsix' : 'tree'));
    let finish!: (code: number) => void;
    const exitCode = new Promise<number>((resolve) => (finish = resolve));
    const workbenchLog = createWriteStream(path.join(temp, 'workbench.log'));
    await page.exposeFunction('codeAutomationLog', (type: string, args: unknown) => {
      // Messages arrive as console arguments, format string first (mocha's reporter uses them).
      const text = Array.isArray(args) ? format(...(args as unknown[])) : String(args);
      workbenchLog.write(`${type}: ${text}\n`);
      if (probes.handle(text)) return;
      if (NOISE.some((n) => n.test(text))) return;
      (type === 'error' ? process.stderr : process.stdout).write(`${text}\n`);
    });
    await page.exposeFunction('codeAutomationExit', (code: number) => finish(code));
    page.on('crash', () => finish(-1));

    const remote = (p: string) => `vscode-remote://127.0.0.1:${port}${p}`;
    const payload = [
      ['extensionDevelopmentPath', remote(extensionDevelopmentPath)],
      ['extensionTestsPath', remote(SUITE_ENTRY)],
      [
        'extensionEnvironment',
        JSON.stringify({
          REACH_AUDIT_EXPECT_EXTENSION_ROOT: expectedRoot,
          REACH_AUDIT_PAGE_PROBES: '1',
          // Where VS Code keeps its logs and user settings (the remote-server suite checks no key is in them).
          REACH_AUDIT_USER_DATA_DIR: dirs['user-data'],
          REACH_AUDIT_SUITE: untrusted ? 'untrusted' : 'main',
          ...(process.env.REACH_AUDIT_SUITE_FILES ? { REACH_AUDIT_SUITE_FILES: process.env.REACH_AUDIT_SUITE_FILES } : {}),
        }),
      ],
    ];
    const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    console.log(`[vscode] running the ${untrusted ? 'untrusted-workspace ' : ''}suite against ${vsix ? `the installed copy in ${expectedRoot}` : 'the working tree'}`);
    await page.goto(url);

    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
    });
    const result = await Promise.race([exitCode, timeout]);
    clearTimeout(timer);
    if (result === 'timeout') {
      console.error(
        `[vscode] FAILED: the suite did not finish within ${TIMEOUT_S} s (REACH_AUDIT_VSCODE_TIMEOUT_S). Last lines of code-server's log:\n${tail(serverLog, 40)}`,
      );
      return 1;
    }
    if (result === -1) {
      console.error('[vscode] FAILED: the workbench page crashed');
      return 1;
    }
    console.log(`[vscode] suite exit code ${result} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    failed = result !== 0;
    return result;
  } catch (err) {
    console.error(`[vscode] FAILED: ${err instanceof Error ? err.message : String(err)}`);
    console.error(`[vscode] last lines of code-server's log:\n${tail(serverLog, 20)}`);
    return 1;
  } finally {
    await cleanup();
  }
}

// Failure until main() says otherwise: an exit that skips the end of main() must not pass.
process.exitCode = 1;
main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
