/**
 * Export of a run's records: JSON (the records as stored, one array) and CSV (one row per
 * question: id, line, gold, deployed answer, realized, reachable per probe, repair; for an imported
 * run, per harness reading its answer, its verdict and the interface failure). Pure.
 */
import { harnessDisagreement, repairedBy, type QuestionRecord } from '../../contract';

/** RFC 4180 field: quoted when it holds a comma, quote or line break; quotes doubled. */
export function csvField(value: unknown): string {
  const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : String(value);
  // A leading =, +, - or @ makes spreadsheets run the cell as a formula: dataset text is untrusted.
  const safe = /^[=+\-@\t\r]/.test(text) && !/^-?\d+(\.\d+)?$/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function probesOf(records: readonly QuestionRecord[]): string[] {
  const names = new Set<string>();
  for (const r of records) for (const p of Object.keys(r.reachable)) names.add(p);
  return [...names];
}

/** An imported run's harness readings (lm-eval filters), in first-seen order; none for an audit. */
function readingsOf(records: readonly QuestionRecord[]): string[] {
  return [...new Set(records.flatMap((r) => Object.keys(r.harness?.readings ?? {})))];
}

export function recordsToCsv(records: readonly QuestionRecord[]): string {
  const probes = probesOf(records);
  const readings = readingsOf(records);
  const harnessHeader = readings.flatMap((h) => [`harness_${h}_answer`, `harness_${h}_correct`, `interface_failure_${h}`]);
  const header = ['id', 'line', 'question', 'gold', 'answer', 'rule', 'realized', ...probes.map((p) => `reachable_${p}`), 'failure_set', 'repaired_by_blocks', ...harnessHeader];
  const rows = records.map((r) => [
    r.id,
    r.line,
    r.question,
    r.gold,
    r.realized.answer ?? '',
    r.realized.rule,
    r.realized.correct,
    ...probes.map((p) => (r.reachable[p] === undefined ? '' : r.reachable[p])),
    r.repair ? r.repair.inFailureSet : '',
    r.repair ? repairedBy(r).join(' ') : '',
    ...readings.flatMap((h) => [r.harness?.readings[h]?.extracted ?? '', r.harness?.readings[h]?.correct ?? '', harnessDisagreement(r, h) ?? '']),
  ]);
  return [header, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}

export function recordsToJson(records: readonly QuestionRecord[]): string {
  return JSON.stringify(records, null, 2) + '\n';
}
