// Packages the extension once per platform, as VS Code extensions with native modules are shipped
// (`vsce package --target`): each .vsix carries only its platform's onnxruntime-node binaries.
// The file list is .vscodeignore with every onnxruntime-node/bin/napi-v6/<os>/<arch>/ line narrowed
// to the target (a line for another os or arch is dropped), given to vsce as --ignoreFile.
// Usage: node tools/packageExtension.js [--target T]... [--out FILE|DIR] [other vsce options]
//   no --target     every platform onnxruntime-node ships binaries for (out/vsix/ by default)
//   --out FILE      with one --target: that file; otherwise a folder for reach-audit-<target>-<version>.vsix
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const NATIVE = 'node_modules/onnxruntime-node/bin/napi-v6';
/** The vsce targets onnxruntime-node has binaries for (its bin/napi-v6/<os>/<arch>/ folders). */
const TARGETS = ['linux-x64', 'linux-arm64', 'darwin-arm64', 'win32-x64', 'win32-arm64'];

/** .vscodeignore narrowed to one target: the native lines of other platforms dropped, `*` segments filled in. */
function ignoreFileFor(target, text) {
  const [targetOs, targetArch] = target.split('-');
  const lines = text.split('\n').flatMap((line) => {
    const at = line.indexOf(`${NATIVE}/`);
    if (at < 0) return [line];
    const [lineOs, lineArch, ...rest] = line.slice(at + NATIVE.length + 1).split('/');
    if ((lineOs !== '*' && lineOs !== targetOs) || (lineArch !== '*' && lineArch !== targetArch)) return [];
    return [`${line.slice(0, at)}${NATIVE}/${targetOs}/${targetArch}/${rest.join('/')}`];
  });
  return lines.join('\n');
}

function parseArgs(argv) {
  const targets = [];
  let out;
  const passOn = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--target' || a === '-t') targets.push(argv[++i]);
    else if (a === '--out' || a === '-o') out = argv[++i];
    else passOn.push(a);
  }
  for (const t of targets) {
    if (!TARGETS.includes(t)) throw new Error(`--target ${t}: onnxruntime-node has no binaries for it; expected one of ${TARGETS.join(', ')}`);
    if (!fs.existsSync(path.join(root, NATIVE, ...t.split('-')))) throw new Error(`--target ${t}: ${NATIVE}/${t.replace('-', '/')} is missing (reinstall onnxruntime-node)`);
  }
  return { targets: targets.length > 0 ? targets : TARGETS, out, passOn };
}

function main() {
  const { targets, out, passOn } = parseArgs(process.argv.slice(2));
  const { version } = require(path.join(root, 'package.json'));
  const single = targets.length === 1 && out !== undefined && out.endsWith('.vsix');
  const outDir = single ? undefined : path.resolve(root, out ?? 'out/vsix');
  if (outDir) fs.mkdirSync(outDir, { recursive: true });
  const ignoreText = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-package-'));
  try {
    for (const target of targets) {
      const ignoreFile = path.join(work, `${target}.vscodeignore`);
      fs.writeFileSync(ignoreFile, ignoreFileFor(target, ignoreText));
      const file = single ? path.resolve(root, out) : path.join(outDir, `reach-audit-${target}-${version}.vsix`);
      const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
      const args = [vsce, 'package', '--target', target, '--ignoreFile', ignoreFile, '--out', file, ...passOn];
      console.log(`[package] ${target} → ${path.relative(root, file)}`);
      const run = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
      if (run.status !== 0) {
        process.exitCode = run.status ?? 1;
        return;
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  try {
    main();
  } catch (err) {
    console.error(`[package] ${err.message}`);
    process.exitCode = 2;
  }
}

module.exports = { ignoreFileFor, TARGETS };
