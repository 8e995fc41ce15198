/**
 * What tells apart runs listed under the same name in the Runs view, which would otherwise pile up
 * alike (four "tuned-arith-test" rows): the start time always, the model folder where theirs differ,
 * the question count and what ran (probes, repair scan, depth probe) where they differ. The Runs view
 * puts these words first, where a narrow side bar still shows them. Pure, over the listed runs.
 */
import * as path from 'node:path';
import type { RunEntry } from './runListing';

type Listed = Pick<RunEntry, 'folder' | 'name' | 'startedAt' | 'model' | 'recordedQuestions' | 'ran'>;

/** "2026-12-06 13:41" from an ISO time or a folder's time prefix ("2026-12-06T13-41-05Z"); as written when neither. */
export function startedText(startedAt: string | undefined): string | undefined {
  if (!startedAt) return undefined;
  const m = /^(\d{4})-?(\d{2})-?(\d{2})(?:[T_ -]?(\d{2})[-:.]?(\d{2})(?:[-:.]?(\d{2}))?)?/.exec(startedAt);
  if (!m) return startedAt;
  return m[4] === undefined ? `${m[1]}-${m[2]}-${m[3]}` : `${m[1]}-${m[2]}-${m[3]} ${m[4]}:${m[5]}${m[6] !== undefined ? `:${m[6]}` : ''}`;
}

/** Run folder → the words that set it apart from the other runs of its name; runs with a name of their own are left out. */
export function runDistinctions(runs: readonly Listed[]): Map<string, string> {
  const byName = new Map<string, Listed[]>();
  for (const run of runs) byName.set(run.name, [...(byName.get(run.name) ?? []), run]);
  const out = new Map<string, string>();
  for (const same of byName.values()) {
    if (same.length < 2) continue;
    const models = new Set(same.map((r) => r.model ?? ''));
    const counts = new Set(same.map((r) => r.recordedQuestions));
    // One-question runs of one line (Audit This Question, Probe Layer Routes, Silence MLP Blocks) differ by what ran.
    const ran = new Set(same.map((r) => r.ran ?? ''));
    for (const run of same) {
      const parts = [startedText(run.startedAt) ?? path.basename(run.folder)];
      if (models.size > 1) parts.push(run.model ? path.basename(run.model) : 'model unknown');
      if (counts.size > 1) parts.push(`${run.recordedQuestions} question${run.recordedQuestions === 1 ? '' : 's'}`);
      if (ran.size > 1 && run.ran) parts.push(run.ran);
      out.set(run.folder, parts.join(' · '));
    }
  }
  return out;
}
