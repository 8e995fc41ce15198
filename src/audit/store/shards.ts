/**
 * Sharded audits: `--shard I/N` audits the questions at positions I, I+N, I+2N, … of the selected
 * questions (dataset order), so the split depends only on the selection, never on which machine is
 * faster; `merge` joins the N shard runs into one run folder.
 *
 * Why this merges into exactly the single-machine run: every record depends only on its own
 * question (all random draws are keyed by run seed, question id, probe and attempt; the global
 * route pool is drawn from the run seed alone), and every step that looks across questions — the
 * global route chosen on a selection split, the repair block chosen on half the failure set, all
 * rates and intervals — is computed from the records by `summarize`, which the merge runs over the
 * joined records.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError, lockFolder } from '../../common';
import { type AnswerFormat, type Question, loadDataset } from '../dataset';
import { recordsVsDataset, verdictsVsOutputs } from './recordSetCheck';
import { summarize } from '../results';
import { manifestMismatches } from './manifest';
import { describeNumerics, numericsDifferences, type NumericsPlatform, type QuestionRecord, type RunManifest, type RunSummary, type ShardSelection, type ShardSpec } from '../../contract';
import {
  FAILURE_SET_FILE,
  JsonLinesAppender,
  readJsonFile,
  readJsonLines,
  readManifest,
  readRecords,
  RECORDS_FILE,
  SUMMARY_FILE,
  TIMINGS_FILE,
  prepareRunFolder,
  writeJson,
  writeManifest,
} from './runStore';

/** "I/N" → {index: I, count: N}; names the flag and the expected form otherwise. */
export function parseShard(text: string, flag = '--shard'): ShardSpec {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) throw new InputError(`${flag}: expected I/N with 0 <= I < N (e.g. 0/4), got '${text}'`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index >= count) throw new InputError(`${flag}: expected I/N with 0 <= I < N (e.g. 0/4), got '${text}'`);
  return { index, count };
}

/** The questions of one shard, in dataset order. */
export function shardQuestions<T extends Pick<Question, 'id'>>(selected: readonly T[], shard: ShardSpec): T[] {
  return selected.filter((_, i) => i % shard.count === shard.index);
}

export function shardSelection(selected: readonly unknown[], shard: ShardSpec): ShardSelection {
  const questions = selected.filter((_, i) => i % shard.count === shard.index).length;
  return { ...shard, questions, ofQuestions: selected.length };
}

interface ShardRun {
  folder: string;
  manifest: RunManifest;
  shard: ShardSelection;
  records: QuestionRecord[];
}

/** A manifest without what differs between shards of one run (which shard, when, under what name). */
function shardless(m: RunManifest): RunManifest {
  return { ...m, selection: { ...m.selection, shard: undefined }, name: '', createdAt: '' };
}

export interface MergeResult {
  folder: string;
  manifest: RunManifest;
  summary: RunSummary;
  records: number;
}

/**
 * Joins shard runs into `outFolder`: refuses (listing every problem) shards made with different
 * settings, models, datasets or engines, a missing, duplicated or unfinished shard, and a question
 * that two shards both hold.
 */
export function mergeShards(folders: readonly string[], outFolder: string, onWarning: (m: string) => void, name?: string): MergeResult {
  if (folders.length === 0) throw new InputError('merge: expected the shard run folders to merge');
  const runs: ShardRun[] = folders.map((folder) => {
    const manifest = readManifest(folder);
    const shard = manifest.selection?.shard;
    if (!shard) throw new InputError(`${path.join(folder, 'manifest.json')}: not a shard (made without --shard I/N); nothing to merge`);
    const read = readRecords(folder);
    for (const w of read.warnings) onWarning(w);
    return { folder, manifest, shard, records: read.values };
  });

  const problems: string[] = [];
  const first = runs[0];
  for (const run of runs.slice(1)) {
    for (const p of manifestMismatches(shardless(first.manifest), shardless(run.manifest))) {
      problems.push(`${run.folder} differs from ${first.folder}: ${p.replace('this command gives', 'this shard has')}`);
    }
    problems.push(...kvCacheFidelityMismatch(first, run, onWarning));
    if (run.shard.count !== first.shard.count) problems.push(`${run.folder} is shard ${run.shard.index}/${run.shard.count}, ${first.folder} is one of ${first.shard.count}`);
  }
  const count = first.shard.count;
  const byIndex = new Map<number, ShardRun[]>();
  for (const run of runs) byIndex.set(run.shard.index, [...(byIndex.get(run.shard.index) ?? []), run]);
  for (let i = 0; i < count; i++) {
    const got = byIndex.get(i) ?? [];
    if (got.length === 0) problems.push(`shard ${i}/${count} is missing`);
    if (got.length > 1) problems.push(`shard ${i}/${count} is given ${got.length} times: ${got.map((r) => r.folder).join(', ')}`);
  }
  for (const run of runs) {
    const ids = new Set(run.records.map((r) => r.id));
    if (ids.size < run.shard.questions) {
      problems.push(`shard ${run.shard.index}/${count} (${run.folder}) has finished ${ids.size} of its ${run.shard.questions} questions: resume it with the same command and --resume`);
    }
    if (readJsonFile(path.join(run.folder, SUMMARY_FILE)) === undefined && ids.size >= run.shard.questions) {
      problems.push(`shard ${run.shard.index}/${count} (${run.folder}) has no ${SUMMARY_FILE}: it did not finish; resume it with --resume`);
    }
  }
  problems.push(...shardRecordsVsDataset(runs, onWarning));
  problems.push(...duplicatedQuestions(runs));
  if (problems.length > 0) throw new InputError(`cannot merge these shards —\n  ${[...new Set(problems)].join('\n  ')}`);

  // One record per question (a resumed shard may hold a question twice only after a torn line).
  const unique = new Map<string, QuestionRecord>();
  for (const run of runs) for (const r of run.records) if (!unique.has(r.id)) unique.set(r.id, r);
  const records = [...unique.values()].sort((a, b) => a.line - b.line);
  const expected = first.shard.ofQuestions;
  if (records.length !== expected) throw new InputError(`cannot merge these shards: they hold ${records.length} questions, the run selected ${expected}`);

  const numerics = mixedNumerics(runs, onWarning);
  const manifest: RunManifest = {
    ...first.manifest,
    engine: numerics ? { ...first.manifest.engine, numericsAlso: numerics } : first.manifest.engine,
    name: name ?? first.manifest.name.replace(/-shard-\d+-of-\d+$/, ''),
    createdAt: runs.map((r) => r.manifest.createdAt).sort()[0],
    // A shard's manifest counts its own questions; the merged run holds them all.
    dataset: { ...first.manifest.dataset, questions: expected },
    // Written without `shard`, exactly as a single-machine run's manifest.
    selection: { ...first.manifest.selection, shard: undefined },
  };
  prepareRunFolder(outFolder);
  const lock = lockFolder(outFolder, { purpose: 'reach-audit merge', advice: 'wait for it to finish, or choose another --out' });
  try {
    if (fs.existsSync(path.join(outFolder, RECORDS_FILE))) throw new InputError(`${outFolder} already holds an audit (${RECORDS_FILE}); choose another --out`);
    writeManifest(outFolder, manifest);
    const recordsOut = new JsonLinesAppender(path.join(outFolder, RECORDS_FILE));
    try {
      for (const r of records) recordsOut.append(r);
    } finally {
      recordsOut.close();
    }
    if (manifest.repair.enabled) {
      const members = new Map<string, unknown>();
      for (const run of runs) {
        for (const m of readJsonLines<{ id: string }>(path.join(run.folder, FAILURE_SET_FILE)).values) members.set(m.id, m);
      }
      const out = new JsonLinesAppender(path.join(outFolder, FAILURE_SET_FILE));
      try {
        for (const r of records) if (members.has(r.id)) out.append(members.get(r.id));
      } finally {
        out.close();
      }
    }
    writeJson(outFolder, TIMINGS_FILE, {
      mergedFrom: runs.map((r) => ({ folder: path.resolve(r.folder), shard: `${r.shard.index}/${r.shard.count}` })),
      sessions: runs.flatMap((r) => readJsonFile<{ sessions?: unknown[] }>(path.join(r.folder, TIMINGS_FILE))?.sessions ?? []),
    });
    const summary = summarize(records);
    writeJson(outFolder, SUMMARY_FILE, summary);
    return { folder: outFolder, manifest, summary, records: records.length };
  } finally {
    lock.release();
  }
}

/**
 * Questions held more than once: in two shards (overlapping shards), or twice in one shard with
 * different content (an edited or damaged file; `report` refuses it too). A question twice in one
 * shard with the same content is one record. Records are told apart by a sha256 of their JSON, so
 * the check holds one digest per question, not a second copy of the records.
 */
function duplicatedQuestions(runs: readonly ShardRun[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, { folder: string; record: number; digest: string }>();
  for (const run of runs) {
    run.records.forEach((r, i) => {
      const digest = createHash('sha256').update(JSON.stringify(r)).digest('hex');
      const earlier = seen.get(r.id);
      if (earlier === undefined) {
        seen.set(r.id, { folder: run.folder, record: i, digest });
        return;
      }
      const differs = earlier.digest !== digest ? ' with different content' : '';
      if (earlier.folder !== run.folder) problems.push(`question ${JSON.stringify(r.id)} is in both ${earlier.folder} and ${run.folder}${differs}`);
      else if (differs) problems.push(`question ${JSON.stringify(r.id)} is recorded twice in ${path.join(run.folder, RECORDS_FILE)}${differs} (records ${earlier.record + 1} and ${i + 1}); the file was edited or damaged`);
    });
  }
  return problems;
}

/**
 * Every shard of a run measures its f16 cache on the same first questions of the whole selection,
 * so on one platform their figures are equal: a difference there is refused, naming both. Across
 * platforms the kernels differ and so may the figure: said, and the merged run keeps the first shard's.
 */
function kvCacheFidelityMismatch(first: ShardRun, run: ShardRun, onWarning: (m: string) => void): string[] {
  const figure = (m: RunManifest) => (m.engine.kvCacheFidelity ? JSON.stringify(m.engine.kvCacheFidelity) : 'not measured');
  const a = figure(first.manifest);
  const b = figure(run.manifest);
  if (a === b) return [];
  const here = first.manifest.engine.numerics;
  const there = run.manifest.engine.numerics;
  const what = `KV cache fidelity (engine.kvCacheFidelity): ${first.folder} has ${a}, ${run.folder} has ${b}`;
  if (here && there && numericsDifferences(here, there).length > 0) {
    onWarning(`${what}; they were measured on machines whose kernels differ, and the merged run keeps the first shard's`);
    return [];
  }
  return [`${what}; shards of one run measure the same questions and should agree: run the odd shard again`];
}

/**
 * The platforms beyond the first shard's that computed some shard (each shard's start and resumes),
 * after saying which shard ran where; undefined when every shard computed alike. Not refused: the
 * records are each right for the machine that made them, and a user may accept the mix.
 */
function mixedNumerics(runs: readonly ShardRun[], onWarning: (m: string) => void): NumericsPlatform[] | undefined {
  const platforms = (m: RunManifest) => [m.engine.numerics, ...(m.engine.numericsAlso ?? [])].filter((p): p is NumericsPlatform => p !== undefined);
  const first = platforms(runs[0].manifest)[0];
  if (!first) return undefined;
  const others: NumericsPlatform[] = [];
  const where: string[] = [];
  for (const run of runs) {
    for (const p of platforms(run.manifest)) {
      const differences = numericsDifferences(first, p);
      if (differences.length === 0) continue;
      where.push(`shard ${run.shard.index}/${run.shard.count} (${run.folder}): ${differences.join(', ')}`);
      if (!others.some((o) => numericsDifferences(o, p).length === 0)) others.push(p);
    }
  }
  if (others.length === 0) return undefined;
  onWarning(
    `the shards were computed on machines whose kernels differ from shard ${runs[0].shard.index}'s (${describeNumerics(first)}) —\n  ${where.join('\n  ')}\n` +
      'each question is right for the machine that audited it, but the merged run may differ from one made on a single machine; manifest.json lists every platform (engine.numericsAlso)',
  );
  return others;
}

/** Every shard's records against the run's dataset, when it is still where the manifest says and unchanged. */
function shardRecordsVsDataset(runs: readonly ShardRun[], onWarning: (m: string) => void): string[] {
  const { path: file, contentHash, format } = runs[0].manifest.dataset;
  // Shards are often merged on another machine than the one with the dataset: then there is nothing to check against.
  if (!fs.existsSync(file)) return [];
  let questions: Question[];
  try {
    const dataset = loadDataset(file, { format: format as AnswerFormat });
    if (dataset.contentHash !== contentHash) {
      onWarning(`${file} changed since the shards ran: their records are not checked against it`);
      return [];
    }
    questions = dataset.questions;
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    onWarning(`the records are not checked against the dataset: ${err.message}`);
    return [];
  }
  return runs.flatMap((run) => {
    const recordsFile = path.join(run.folder, RECORDS_FILE);
    return [...recordsVsDataset(recordsFile, file, run.records, questions), ...verdictsVsOutputs(recordsFile, run.records, questions, run.manifest.grading)];
  });
}
