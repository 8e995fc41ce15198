/**
 * Sharded audits: the split depends only on the selection, the N shards merged give byte for byte
 * the single-machine records and summary, and the merge refuses shards that do not belong together
 * (naming a missing, duplicated or unfinished shard and every differing setting).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { runAudit } from '../../../src/audit/runner/runFolderAudit';
import { mergeShards, parseShard, shardQuestions, shardSelection } from '../../../src/audit/store/shards';
import type { KvMemoryPlan, RunManifest, ShardSpec } from '../../../src/contract';
import { comparisonMismatches } from '../../../src/audit/store/manifest';
import { InputError } from '../../../src/common/errors';
import { fakeFor, gsm8kText, settingsFor, smallDataset, tempDir } from './fixtures';
import { loadDataset } from '../../../src/audit/dataset/dataset';

const dataset = smallDataset(23);
const common = { engineVersion: 'test', dataset, name: 't', inFlight: 4, modelInfo: { path: '/m', contentHash: 'h' } };

async function shardRun(shard: ShardSpec, folder: string, settings = settingsFor(), kvMemory?: KvMemoryPlan) {
  const questions = shardQuestions(dataset.questions, shard);
  await runAudit({
    ...common,
    ...(kvMemory ? { kvMemory } : {}),
    name: `t-shard-${shard.index}-of-${shard.count}`,
    questions,
    settings: { ...settings, selection: { ...settings.selection, shard: shardSelection(dataset.questions, shard) } },
    model: fakeFor(dataset),
    folder,
    resume: false,
  });
  return folder;
}

test('--shard I/N parses 0-based and names the form otherwise', () => {
  assert.deepEqual(parseShard('2/4'), { index: 2, count: 4 });
  for (const bad of ['4/4', '1/0', '-1/3', 'a/b', '1', '']) assert.throws(() => parseShard(bad), /--shard: expected I\/N with 0 <= I < N/);
});

test('the shards partition the selection in dataset order, whatever N', () => {
  for (const n of [1, 2, 4, 7, 30]) {
    const parts = Array.from({ length: n }, (_, i) => shardQuestions(dataset.questions, { index: i, count: n }));
    const ids = parts.flat().map((q) => q.id).sort();
    assert.deepEqual(ids, dataset.questions.map((q) => q.id).sort());
    for (const part of parts) assert.deepEqual(part.map((q) => q.line), [...part.map((q) => q.line)].sort((a, b) => a - b));
  }
});

test('4 shards merged equal the single-machine run byte for byte (records, failure set, summary)', async () => {
  const single = tempDir();
  await runAudit({ ...common, questions: dataset.questions, settings: settingsFor(), model: fakeFor(dataset), folder: single, resume: false });
  const root = tempDir();
  const shards = [];
  for (let i = 0; i < 4; i++) shards.push(await shardRun({ index: i, count: 4 }, path.join(root, `s${i}`)));
  const merged = path.join(root, 'merged');
  const warnings: string[] = [];
  const result = mergeShards([...shards].reverse(), merged, (m) => warnings.push(m));
  assert.equal(result.records, 23);
  assert.deepEqual(warnings, []);
  for (const file of ['records.jsonl', 'summary.json', 'failure-set.jsonl']) {
    assert.equal(fs.readFileSync(path.join(merged, file), 'utf8'), fs.readFileSync(path.join(single, file), 'utf8'), file);
  }
  const m = JSON.parse(fs.readFileSync(path.join(merged, 'manifest.json'), 'utf8'));
  const s = JSON.parse(fs.readFileSync(path.join(single, 'manifest.json'), 'utf8'));
  assert.deepEqual({ ...m, createdAt: 0 }, { ...s, createdAt: 0 }, 'the merged manifest is the single-machine one');
});

test('shards audited under other KV budgets (a flag, the default of other free memory, none) merge as one run, and compare as the same settings', async () => {
  const single = tempDir();
  await runAudit({ ...common, questions: dataset.questions, settings: settingsFor(), model: fakeFor(dataset), folder: single, resume: false });
  const need = { perSequenceBytes: 491520, routeLength: 10, kvHeads: 2, headSize: 24, promptTokens: 34, maxNewTokens: 64, slots: 128 };
  const budgets: (KvMemoryPlan | undefined)[] = [
    { budgetBytes: 2 ** 20, budgetFrom: 'flag', ...need, atOnce: 2 },
    { budgetBytes: 4 * 2 ** 30, budgetFrom: 'default', availableBytes: 8 * 2 ** 30, share: 0.5, ...need, atOnce: 32 },
    undefined,
  ];
  const root = tempDir();
  const shards = [];
  for (let i = 0; i < 3; i++) shards.push(await shardRun({ index: i, count: 3 }, path.join(root, `s${i}`), settingsFor(), budgets[i]));
  const merged = path.join(root, 'merged');
  const warnings: string[] = [];
  mergeShards(shards, merged, (m) => warnings.push(m));
  assert.deepEqual(warnings, [], 'a budget is scheduling, not a difference to warn of');
  for (const file of ['records.jsonl', 'summary.json']) {
    assert.equal(fs.readFileSync(path.join(merged, file), 'utf8'), fs.readFileSync(path.join(single, file), 'utf8'), file);
  }
  const manifestOf = (folder: string) => JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as RunManifest;
  assert.deepEqual(manifestOf(merged).engine.kvMemory, budgets[0], 'the merged run keeps its first shard\'s budget, as it keeps its numerics');
  // The merged run (1 MiB given) compares with the single run (no budget) as the same settings.
  assert.deepEqual(comparisonMismatches(manifestOf(merged), manifestOf(single)), []);
});

test('a missing, duplicated or unfinished shard, or other settings, is refused with each problem named', async () => {
  const root = tempDir();
  const s0 = await shardRun({ index: 0, count: 3 }, path.join(root, 's0'));
  const s1 = await shardRun({ index: 1, count: 3 }, path.join(root, 's1'));
  const other = await shardRun({ index: 2, count: 3 }, path.join(root, 'other'), settingsFor(8, { seeds: { run: 99 } }));
  const expectRefusal = (folders: string[], ...patterns: RegExp[]) =>
    assert.throws(
      () => mergeShards(folders, path.join(root, `out-${Math.random()}`), () => {}),
      (e: unknown) => e instanceof InputError && patterns.every((p) => p.test((e as Error).message)),
    );
  expectRefusal([s0, s1], /shard 2\/3 is missing/);
  expectRefusal([s0, s1, s1], /shard 1\/3 is given 2 times/, /shard 2\/3 is missing/);
  expectRefusal([s0, s1, other], /differs from .*seed: the run has \{"run":11\}, this shard has \{"run":99\}/);
  // Unfinished: cut the records of shard 1 to its first two questions and drop its summary.
  const records = fs.readFileSync(path.join(s1, 'records.jsonl'), 'utf8').split('\n').filter(Boolean);
  fs.writeFileSync(path.join(s1, 'records.jsonl'), records.slice(0, 2).join('\n') + '\n');
  fs.rmSync(path.join(s1, 'summary.json'));
  const s2 = await shardRun({ index: 2, count: 3 }, path.join(root, 's2'));
  expectRefusal([s0, s1, s2], /shard 1\/3 .* has finished 2 of its 8 questions: resume it/);
  // Not a shard at all.
  const single = tempDir();
  await runAudit({ ...common, questions: dataset.questions.slice(0, 3), settings: settingsFor(), model: fakeFor(dataset), folder: single, resume: false });
  expectRefusal([single], /not a shard/);
});

test('a gold edited in a shard\'s records is refused when the run\'s dataset is at hand (issue 29)', async () => {
  const root = tempDir();
  const file = path.join(root, 'test.jsonl');
  fs.writeFileSync(file, gsm8kText(10));
  const onDisk = loadDataset(file);
  const folders: string[] = [];
  for (let i = 0; i < 2; i++) {
    const shard = { index: i, count: 2 };
    const folder = path.join(root, `s${i}`);
    const settings = settingsFor();
    await runAudit({
      ...common,
      dataset: onDisk,
      name: `t-shard-${i}-of-2`,
      questions: shardQuestions(onDisk.questions, shard),
      settings: { ...settings, selection: { ...settings.selection, shard: shardSelection(onDisk.questions, shard) } },
      model: fakeFor(onDisk),
      folder,
      resume: false,
    });
    folders.push(folder);
  }
  const recordsFile = path.join(folders[1], 'records.jsonl');
  const lines = fs.readFileSync(recordsFile, 'utf8').trimEnd().split('\n');
  const edited = JSON.parse(lines[0]) as { id: string; gold: string; line: number };
  const gold = edited.gold;
  lines[0] = JSON.stringify({ ...edited, gold: '999999' });
  fs.writeFileSync(recordsFile, lines.join('\n') + '\n');
  assert.throws(
    () => mergeShards(folders, path.join(root, 'merged'), () => {}),
    (e: unknown) => e instanceof InputError && e.message.includes(`${recordsFile}: question ${JSON.stringify(edited.id)} has gold "999999", ${file}:${edited.line} has ${JSON.stringify(gold)}`),
  );
  lines[0] = JSON.stringify(edited);
  // A verdict flipped (issue 39, weak case: every realized.correct flipped merged as it was): graded again, and refused.
  const flipped = lines.map((l) => {
    const r = JSON.parse(l) as { realized: { correct: boolean } };
    return JSON.stringify({ ...r, realized: { ...r.realized, correct: !r.realized.correct } });
  });
  fs.writeFileSync(recordsFile, flipped.join('\n') + '\n');
  assert.throws(
    () => mergeShards(folders, path.join(root, 'merged'), () => {}),
    (e: unknown) => e instanceof InputError && new RegExp(`${recordsFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: question "[^"]+": the deployed output is recorded (correct|wrong), but it grades (wrong|correct); the file was edited or damaged, or graded under other rules \\(reach-audit regrade it first\\)`).test(e.message),
  );
  fs.writeFileSync(recordsFile, lines.join('\n') + '\n');
  assert.equal(mergeShards(folders, path.join(root, 'merged'), () => {}).records, 10, 'the untouched shards merge');
});

test('a question held twice with different content, in one shard or in two, is refused naming the shards and the id (issue 39, weak case)', async () => {
  const root = tempDir();
  const s0 = await shardRun({ index: 0, count: 2 }, path.join(root, 's0'));
  const s1 = await shardRun({ index: 1, count: 2 }, path.join(root, 's1'));
  const file1 = path.join(s1, 'records.jsonl');
  const clean = fs.readFileSync(file1, 'utf8');
  const lines = clean.trimEnd().split('\n');
  const refusal = (...parts: string[]) => (e: unknown) => e instanceof InputError && parts.every((p) => e.message.includes(p));
  // The same question again in shard 1, its deployed verdict flipped: report refuses such a file, and so does merge.
  const record = JSON.parse(lines[2]) as { id: string; realized: { correct: boolean } };
  const flipped = JSON.stringify({ ...record, realized: { ...record.realized, correct: !record.realized.correct } });
  fs.writeFileSync(file1, [...lines, flipped].join('\n') + '\n');
  assert.throws(() => mergeShards([s0, s1], path.join(root, 'm1'), () => {}), refusal(`question ${JSON.stringify(record.id)} is recorded twice in ${file1} with different content (records 3 and ${lines.length + 1})`));
  // The same line twice (a resumed shard) is one record.
  fs.writeFileSync(file1, [...lines, lines[2]].join('\n') + '\n');
  assert.equal(mergeShards([s0, s1], path.join(root, 'm2'), () => {}).records, dataset.questions.length);
  // A question of shard 0 in shard 1 with other content names both shards.
  const theirs = JSON.parse(fs.readFileSync(path.join(s0, 'records.jsonl'), 'utf8').split('\n')[0]) as { id: string; realized: { correct: boolean } };
  fs.writeFileSync(file1, [...lines, JSON.stringify({ ...theirs, realized: { ...theirs.realized, correct: !theirs.realized.correct } })].join('\n') + '\n');
  assert.throws(() => mergeShards([s0, s1], path.join(root, 'm3'), () => {}), refusal(`question ${JSON.stringify(theirs.id)} is in both ${s0} and ${s1} with different content`));
  fs.writeFileSync(file1, clean);
  assert.equal(mergeShards([s0, s1], path.join(root, 'm4'), () => {}).records, dataset.questions.length);
});

test('the guide to running beyond one machine links every cluster file in tools/cluster by its path', () => {
  const repo = path.resolve(__dirname, '..', '..', '..', '..');
  const guide = fs.readFileSync(path.join(repo, 'docs', 'beyond-one-machine.md'), 'utf8');
  for (const file of fs.readdirSync(path.join(repo, 'tools', 'cluster')).sort()) {
    assert.ok(guide.includes(`](../tools/cluster/${file})`), `docs/beyond-one-machine.md links tools/cluster/${file}`);
  }
});
