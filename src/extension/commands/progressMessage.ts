/**
 * What the progress notification says while an audit runs: questions done of the total (one step
 * per finished question), what the engine is doing before the first one, generated tokens per second
 * once tokens have been timed, and the time left only once the engine has measured one (it sends
 * none before a question has finished). Pure: the session reports it, tests read it.
 */
import { estimateText, formatDuration, type AuditEstimate } from '../../audit/runner';
import type { ProgressEvent, RunLabel } from '../../service';

/**
 * "3/24 questions · 40,312 tokens · 812.4 tokens/s · 1m05s left"; "0/24 questions · loading model: …" before any.
 * A comparison audits the base run, then the trained one: each count says which ("tuned: 3/24 …").
 */
export function progressMessage(event: Pick<ProgressEvent, 'done' | 'total' | 'eta' | 'tokensPerSecond' | 'stage' | 'label'> & Partial<Pick<ProgressEvent, 'generatedTokens' | 'etaRepairMost'>>): string {
  const run = event.label ? `${event.label}: ` : '';
  const stage = event.stage ? ` · ${event.stage}` : '';
  // The engine's live count: moves every second even while no question has finished.
  const tokens = event.generatedTokens !== undefined && Number.isFinite(event.generatedTokens) ? ` · ${event.generatedTokens.toLocaleString('en-US')} tokens` : '';
  const speed = event.tokensPerSecond !== undefined && Number.isFinite(event.tokensPerSecond) ? ` · ${event.tokensPerSecond.toFixed(1)} tokens/s` : '';
  // null: not measured yet; at the end there is nothing left to estimate.
  const repair = event.etaRepairMost !== undefined && Number.isFinite(event.etaRepairMost) && event.etaRepairMost > 0 ? ` (+ up to ${formatDuration(event.etaRepairMost * 1000)} for the repair scan)` : '';
  const eta = event.eta !== null && Number.isFinite(event.eta) && event.done < event.total ? ` · ${formatDuration(event.eta * 1000)} left${repair}` : '';
  return `${run}${event.done}/${event.total} questions${stage}${tokens}${speed}${eta}`;
}

/**
 * How far the whole request is, 0–1, for the notification's bar: a comparison's base run fills the
 * first half and its trained run the second, so the bar never restarts (nor stalls full) between them.
 */
export function progressShare(event: Pick<ProgressEvent, 'done' | 'total' | 'label'>): number {
  const own = event.total > 0 ? Math.min(1, event.done / event.total) : 0;
  if (event.label === 'base') return own / 2;
  if (event.label === 'tuned') return 0.5 + own / 2;
  return own;
}

/** The pre-run estimate as the notification offering Cancel says it: the plan, then the measured cost. */
export function estimateMessage(estimate: AuditEstimate, label?: RunLabel): string {
  const text = estimateText(estimate);
  return `Reach Audit${label ? ` (${label} run)` : ''}: ${text.plan}. Estimate: ${text.cost}.`;
}

/**
 * What the estimate's notification says under its planned range once the engine has measured the
 * run's speed, the time left: "measured: 1m05s left at 812.4 tokens/s (3/24 questions done)".
 * Undefined before a measure, and at the end. The planned range ("34s–12m32s") spans every attempt
 * stopping early to none stopping, too wide to plan by; the measured one is what to plan by.
 */
export function measuredEstimateText(event: Pick<ProgressEvent, 'done' | 'total' | 'eta' | 'tokensPerSecond'> & Partial<Pick<ProgressEvent, 'etaRepairMost'>>): string | undefined {
  if (event.eta === null || !Number.isFinite(event.eta) || event.done >= event.total) return undefined;
  const speed = event.tokensPerSecond !== undefined && Number.isFinite(event.tokensPerSecond) ? ` at ${event.tokensPerSecond.toFixed(1)} tokens/s` : '';
  const repair = event.etaRepairMost !== undefined && Number.isFinite(event.etaRepairMost) && event.etaRepairMost > 0 ? ` (+ up to ${formatDuration(event.etaRepairMost * 1000)} for the repair scan)` : '';
  return `measured: ${formatDuration(event.eta * 1000)} left${speed}${repair} (${event.done}/${event.total} questions done)`;
}
