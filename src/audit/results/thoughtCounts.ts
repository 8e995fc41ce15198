/**
 * Outputs cut while thinking (docs/design/grading.md, thinking), counted apart like outputs cut
 * at the token limit: they are no answers, and a run full of them says the budget is too small
 * for the model's thoughts, not that the model answers wrongly.
 */
import type { GradedOutput, QuestionRecord, RunSummary, ThoughtCount } from '../../contract';

function count(outputs: readonly Pick<GradedOutput, 'thought'>[]): ThoughtCount {
  return { unfinished: outputs.filter((o) => o.thought === 'unfinished').length, outputs: outputs.length };
}

/** The counts of a run's outputs; undefined when no output had a thinking marker (a model that does not think). */
export function unfinishedThoughts(records: readonly QuestionRecord[], probes: readonly string[]): RunSummary['unfinishedThoughts'] {
  const attempts = (p: string) => records.flatMap((r) => r.probes[p]?.attempts ?? []);
  const pooled = records.flatMap((r) => r.globalRoutes?.attempts ?? []);
  const repaired = records.flatMap((r) => Object.values(r.repair?.unfinishedThoughtBySilencedBlock ?? {}).map((u) => ({ thought: u ? ('unfinished' as const) : undefined })));
  const thinks = (os: readonly Pick<GradedOutput, 'thought'>[]) => os.some((o) => o.thought !== undefined);
  const anyRepair = records.some((r) => r.repair?.unfinishedThoughtBySilencedBlock !== undefined);
  if (!thinks(records.map((r) => r.realized)) && !probes.some((p) => thinks(attempts(p))) && !thinks(pooled) && !anyRepair) return undefined;
  const out: NonNullable<RunSummary['unfinishedThoughts']> = { realized: count(records.map((r) => r.realized)).unfinished, probes: {} };
  for (const p of probes) out.probes[p] = count(attempts(p));
  if (pooled.length > 0) out.globalRoutes = count(pooled);
  if (repaired.length > 0) out.repair = count(repaired);
  return out;
}
