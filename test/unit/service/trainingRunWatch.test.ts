/**
 * The watch loop on a real folder with a stand-in audit: checkpoints copied in between polls are
 * audited once complete, in step order; one deleted during its audit is skipped and named and the
 * watch goes on; an abort stops it with the checkpoint queued again; --max-checkpoints and
 * --until-idle end it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { watchTrainingRun, type TrainingRunWatchPlan } from '../../../src/service/trainingRunWatch';
import { watchStatusLine } from '../../../src/service/checkpointQueue';
import { SMALL_SPECS, writeRandomModel } from '../../support/modelFolder';

function withFolder(run: (root: string, model: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-watch-'));
    try {
      const model = writeRandomModel(path.join(root, 'model'), SMALL_SPECS.llama).dir;
      fs.mkdirSync(path.join(root, 'run'));
      await run(root, model);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  };
}

const copy = (model: string, to: string) => fs.cpSync(model, to, { recursive: true });

/** A plan whose sleep runs the next scripted step (what the trainer does between two polls). */
function plan(root: string, steps: (() => void)[], audit: TrainingRunWatchPlan['audit'], extra: Partial<TrainingRunWatchPlan> = {}) {
  const lines: string[] = [];
  const finished: string[][] = [];
  const controller = new AbortController();
  let polls = 0;
  const p: TrainingRunWatchPlan = {
    dir: path.join(root, 'run'),
    pollMs: 1,
    signal: controller.signal,
    audit,
    onStatus: (s) => lines.push(watchStatusLine(s)),
    onDone: (done) => void finished.push([...done]),
    sleep: async () => {
      polls++;
      const step = steps.shift();
      if (step) step();
      else controller.abort();
    },
    ...extra,
  };
  return { p, lines, finished, controller, polls: () => polls };
}

test('checkpoints copied in while it watches are audited in step order, each once complete', withFolder(async (root, model) => {
  const audited: string[] = [];
  const run = path.join(root, 'run');
  const { p, lines, finished } = plan(root, [
    () => copy(model, path.join(run, 'checkpoint-1000')),
    () => copy(model, path.join(run, 'checkpoint-200')),
    () => undefined,
  ], async (c) => {
    audited.push(c.name);
    assert.equal(c.dir, path.join(run, c.name));
    return 'done';
  });
  const result = await watchTrainingRun(p);
  assert.equal(result.ended, 'interrupted');
  // Each is audited on the poll after the one that first saw it (two polls with the same files).
  assert.deepEqual(audited, ['checkpoint-1000', 'checkpoint-200']);
  assert.deepEqual(finished, [['checkpoint-1000'], ['checkpoint-200', 'checkpoint-1000']], 'the trajectory in step order after each');
  assert.ok(lines.includes('waiting for checkpoints · 0 queued · 1 being written (checkpoint-1000: checking that its files hold still) · 0 done'), lines.join('\n'));
  assert.ok(lines.includes('auditing checkpoint-200 · 0 queued · 1 done'), lines.join('\n'));
}));

test('two ready at once: the lower step first', withFolder(async (root, model) => {
  const audited: string[] = [];
  const run = path.join(root, 'run');
  copy(model, path.join(run, 'checkpoint-1000'));
  copy(model, path.join(run, 'checkpoint-100'));
  const { p } = plan(root, [() => undefined], async (c) => (audited.push(c.name), 'done'));
  await watchTrainingRun(p);
  assert.deepEqual(audited, ['checkpoint-100', 'checkpoint-1000']);
}));

test('a checkpoint deleted during its audit is skipped and named; the next one is audited', withFolder(async (root, model) => {
  const run = path.join(root, 'run');
  copy(model, path.join(run, 'checkpoint-1'));
  copy(model, path.join(run, 'checkpoint-2'));
  const audited: string[] = [];
  const { p, lines, finished } = plan(root, [() => undefined], async (c) => {
    if (c.name === 'checkpoint-1') {
      fs.rmSync(c.dir, { recursive: true });
      throw new Error(`${c.dir}/config.json: cannot read (ENOENT)`);
    }
    audited.push(c.name);
    return 'done';
  });
  const result = await watchTrainingRun(p);
  assert.deepEqual(audited, ['checkpoint-2']);
  assert.deepEqual(result.status.skipped, [{ name: 'checkpoint-1', why: 'deleted during its audit' }]);
  assert.deepEqual(finished, [['checkpoint-2']]);
  assert.ok(lines.some((l) => l.endsWith('skipped checkpoint-1 (deleted during its audit)')), lines.join('\n'));
}));

test('an audit that fails on a checkpoint still there stops the watch with its error', withFolder(async (root, model) => {
  copy(model, path.join(root, 'run', 'checkpoint-1'));
  const { p } = plan(root, [() => undefined], async () => {
    throw new Error('--data: no such file');
  });
  await assert.rejects(watchTrainingRun(p), /--data: no such file/);
}));

test('a stop during an audit leaves the checkpoint queued; max-checkpoints and until-idle end the watch', withFolder(async (root, model) => {
  const run = path.join(root, 'run');
  copy(model, path.join(run, 'checkpoint-1'));
  copy(model, path.join(run, 'checkpoint-2'));
  const stopping = plan(root, [() => undefined], async () => (stopping.controller.abort(), 'stopped'));
  const stopped = await watchTrainingRun(stopping.p);
  assert.equal(stopped.ended, 'interrupted');
  assert.deepEqual(stopped.status.queued, ['checkpoint-1', 'checkpoint-2']);

  const enough = plan(root, [() => undefined, () => undefined], async () => 'done', { maxCheckpoints: 1 });
  const one = await watchTrainingRun(enough.p);
  assert.equal(one.ended, 'enough');
  assert.deepEqual(one.status.done, ['checkpoint-1']);

  // Done by an earlier watch (its folder since deleted), and the rest audited: idle ends it.
  const idle = plan(root, Array.from({ length: 100 }, () => () => undefined), async () => 'done', { untilIdleMs: 0, done: ['checkpoint-0'] });
  const quiet = await watchTrainingRun(idle.p);
  assert.equal(quiet.ended, 'idle');
  assert.deepEqual(quiet.status.done, ['checkpoint-0', 'checkpoint-1', 'checkpoint-2']);
}));

test('until-idle: a checkpoint left half-written (a shard never arrives) does not keep the watch up; it is named', withFolder(async (root) => {
  const sharded = writeRandomModel(path.join(root, 'run', 'checkpoint-7'), SMALL_SPECS.mistral);
  fs.rmSync(path.join(sharded.dir, sharded.weightFiles[0]));
  const { p, lines } = plan(root, Array.from({ length: 10 }, () => () => undefined), async () => assert.fail('an incomplete checkpoint is never audited'), { untilIdleMs: 0 });
  const result = await watchTrainingRun(p);
  assert.equal(result.ended, 'idle');
  assert.equal(result.status.writing.length, 1);
  assert.match(watchStatusLine(result.status), /1 being written \(checkpoint-7: .*names shard model-00001-of-00002\.safetensors .* does not exist \(read again when its files change\)\)/);
  assert.ok(lines.length >= 2);
}));

test('a checkpoint whose files hold still but never read is read once, not every poll, and again when its files change (issue 39, weak case)', withFolder(async (root, model) => {
  const folder = path.join(root, 'run', 'checkpoint-9');
  copy(model, folder);
  const config = path.join(folder, 'config.json');
  const good = fs.readFileSync(config, 'utf8');
  fs.writeFileSync(config, '{ not json');
  // Every open of the folder's config.json (the readiness check reads it through the engine's reader).
  const nodeFs = module.require('node:fs') as typeof fs;
  const realOpen = nodeFs.openSync;
  let opens = 0;
  nodeFs.openSync = ((file: fs.PathLike, ...rest: unknown[]) => {
    if (String(file) === config) opens++;
    return (realOpen as (...a: unknown[]) => number)(file, ...rest);
  }) as typeof fs.openSync;
  try {
    const audited: string[] = [];
    const steps: (() => void)[] = Array.from({ length: 20 }, () => () => undefined);
    // The trainer finally writes it: the next polls read it again and audit it.
    steps.push(() => fs.writeFileSync(config, good), () => undefined, () => undefined);
    const { p, lines } = plan(root, steps, async (c) => (audited.push(c.name), 'done'));
    await watchTrainingRun(p);
    assert.ok(lines.some((l) => /1 being written \(checkpoint-9: .*config\.json.*\(read again when its files change\)\)/.test(l)), lines.join('\n'));
    assert.equal(opens, 2, 'read once while broken, once after it changed');
    assert.deepEqual(audited, ['checkpoint-9']);
  } finally {
    nodeFs.openSync = realOpen;
  }
}));

