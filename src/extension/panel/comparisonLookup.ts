/**
 * Finds the stored checkpoint comparison a run belongs to, so that opening a trained run later
 * (from the Runs view, a dataset line's hover) shows it against its base with the paired numbers, as right
 * after Compare Checkpoints. Comparisons live beside the runs:
 * <workspace>/.reach-audit/runs/<run> ↔ <workspace>/.reach-audit/comparisons/<c>/comparison.json.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readComparison } from '../../audit/store';
import type { StoredComparison } from '../../contract';

/** The newest comparison whose trained run is `runFolder` and whose base run still exists. */
export function latestComparisonOf(runFolder: string): StoredComparison | undefined {
  const target = path.resolve(runFolder);
  const comparisons = path.resolve(target, '..', '..', 'comparisons');
  let names: string[];
  try {
    names = fs.readdirSync(comparisons);
  } catch {
    return undefined;
  }
  // Folder names start with a sortable UTC time stamp: newest first.
  for (const name of names.sort().reverse()) {
    let stored: StoredComparison | undefined;
    try {
      stored = readComparison(path.join(comparisons, name));
    } catch {
      continue; // a broken comparison file is skipped, not an error for the run being opened
    }
    if (!stored || path.resolve(stored.tuned.folder) !== target) continue;
    if (fs.existsSync(stored.base.folder)) return stored;
  }
  return undefined;
}
