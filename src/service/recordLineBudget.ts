/**
 * Whether a question's attempts fit the one record line they are kept in. Every attempt's output is
 * stored in the question's line of records.jsonl, which no command reads past MAX_RUN_LINE_BYTES;
 * the per-probe cap (MAX_PROBE_BUDGET) alone does not see --max-new-tokens, so 10,000 attempts at
 * 4,096 new tokens (≈ 168 MB a probe) passed, ran for hours, and could not be written. The estimate
 * is of a typical line: about 4 bytes a token of text and 400 bytes of fields an attempt.
 */
import { InputError } from '../common';
import { DEPTH_MARKS, type ProbeSpec } from '../contract';
import { MAX_RUN_LINE_BYTES } from '../audit/store';

export const TYPICAL_BYTES_PER_TOKEN = 4;
export const ATTEMPT_FIELD_BYTES = 400;

export interface AttemptCounts {
  probes: readonly ProbeSpec[];
  globalRoutes: number;
  depthProbe?: number;
}

/** The most attempts a question may take at this output length. */
export const attemptsThatFit = (maxNewTokens: number) => Math.floor(MAX_RUN_LINE_BYTES / (maxNewTokens * TYPICAL_BYTES_PER_TOKEN + ATTEMPT_FIELD_BYTES));

/** Refuses budgets whose attempts, at --max-new-tokens, would make a record line no command can read. */
export function checkAttemptsFitRecord(counts: AttemptCounts, maxNewTokens: number): void {
  const parts = [
    ...counts.probes.map((p) => ({ flag: `--probe ${p.name}:${p.budget}`, attempts: p.budget })),
    ...(counts.globalRoutes > 0 ? [{ flag: `global-route pool ${counts.globalRoutes}`, attempts: counts.globalRoutes }] : []),
    ...(counts.depthProbe ? [{ flag: `--depth-probe ${counts.depthProbe} (× ${DEPTH_MARKS.length} prefixes)`, attempts: counts.depthProbe * DEPTH_MARKS.length }] : []),
  ];
  const attempts = parts.reduce((s, p) => s + p.attempts, 0);
  const cap = attemptsThatFit(maxNewTokens);
  if (attempts <= cap) return;
  const megabytes = (attempts * (maxNewTokens * TYPICAL_BYTES_PER_TOKEN + ATTEMPT_FIELD_BYTES)) / 1e6;
  throw new InputError(
    `${parts.map((p) => p.flag).join(', ')}: ${attempts.toLocaleString('en-US')} attempts a question of up to ${maxNewTokens.toLocaleString('en-US')} new tokens (--max-new-tokens) ` +
      `make a record line of about ${Math.round(megabytes).toLocaleString('en-US')} MB (at about ${TYPICAL_BYTES_PER_TOKEN} bytes a token and ${ATTEMPT_FIELD_BYTES} an attempt), ` +
      `over the ${MAX_RUN_LINE_BYTES / 1024 / 1024} MiB every command reads a record line with (each question's attempts are kept in its one line). ` +
      `At --max-new-tokens ${maxNewTokens.toLocaleString('en-US')} a question may take at most ${cap.toLocaleString('en-US')} attempts: lower the budgets or --max-new-tokens`,
  );
}
