import { after, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadModel } from '../../../src/engine';
import { InputError } from '../../../src/common/errors';
import { createFolder } from '../../../src/common/folderCreation';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-folders-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const DEMO = path.resolve(__dirname, '../../../../media/demo/base');
const onLinux = { skip: process.platform !== 'linux' && 'Linux file systems' };

function inputError(pattern: string) {
  return (err: Error) => {
    assert.ok(err instanceof InputError, `${err.name}: ${err.message}`);
    assert.equal(err.message, pattern);
    return true;
  };
}

describe('folders that cannot be made are named with the cause', () => {
  it('a file in the way is named', () => {
    const file = path.join(root, 'a-file');
    fs.writeFileSync(file, 'x');
    assert.throws(() => createFolder(path.join(file, 'sub', 'deeper'), 'the thing'), inputError(`cannot write the thing ${path.join(file, 'sub', 'deeper')}: a file is in the way (expected a folder) (${file} is a file)`));
    assert.throws(() => createFolder(file, 'the thing'), inputError(`cannot write the thing ${file}: a file is in the way (expected a folder) (${file} is a file)`));
    assert.equal(fs.readFileSync(file, 'utf8'), 'x');
  });

  it('the graph cache root: a file in the way, and /proc (which used to spin for ever), before anything is built', onLinux, async () => {
    const file = path.join(root, 'cache-file');
    fs.writeFileSync(file, 'x');
    const cacheDir = path.join(file, 'graphs');
    await assert.rejects(loadModel(DEMO, { cacheDir, threads: 1 }), inputError(`cannot write the graph cache ${cacheDir}: a file is in the way (expected a folder) (${file} is a file)`));
    const started = Date.now();
    await assert.rejects(loadModel(DEMO, { cacheDir: '/proc/reach-audit-cache', threads: 1 }), inputError('cannot write the graph cache /proc/reach-audit-cache: it is on the proc file system, which holds no ordinary files; choose a folder on a disk'));
    assert.ok(Date.now() - started < 10_000);
    assert.equal(fs.existsSync('/proc/reach-audit-cache'), false);
  });
});
