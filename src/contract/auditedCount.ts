/**
 * How many of a run's questions were audited and why the rest were not: a run whose every prompt
 * overflows the model's context "finishes" with n = 0, and must not read as a result. Said the same
 * way by the panel's status line and the extension's notification at the end of a run. Pure.
 */
import type { QuestionRecord } from './runRecord';

export interface AuditedCount {
  /** Questions recorded (audited and skipped). */
  total: number;
  /** Questions in n. */
  audited: number;
  /** Prompt + max new tokens over the model's context: the shortest such prompt, for the message. */
  context: { count: number; promptTokens: number; maxNewTokens: number; contextLimit: number } | undefined;
  /** Questions shown with their answers as the prompt's few-shot examples. */
  exemplars: number;
}

export function auditedCount(records: readonly QuestionRecord[]): AuditedCount {
  let context: AuditedCount['context'];
  let exemplars = 0;
  for (const r of records) {
    const s = r.skipped;
    if (!s) continue;
    if (s.reason === 'exemplar') exemplars++;
    else if (!context) context = { count: 1, promptTokens: s.promptTokens, maxNewTokens: s.maxNewTokens, contextLimit: s.contextLimit };
    else context = { ...(s.promptTokens < context.promptTokens ? { promptTokens: s.promptTokens, maxNewTokens: s.maxNewTokens, contextLimit: s.contextLimit } : context), count: context.count + 1 };
  }
  const skipped = (context?.count ?? 0) + exemplars;
  return { total: records.length, audited: records.length - skipped, context, exemplars };
}

const n = (k: number) => k.toLocaleString('en-US');

/**
 * "0 of 20 questions audited — 20 skipped: prompt + max new tokens longer than the model's context
 * (the shortest: 1,546 + 64 > 512 tokens)"; undefined when nothing was skipped.
 */
export function skippedText(c: AuditedCount): string | undefined {
  const reasons: string[] = [];
  if (c.context) {
    const { count, promptTokens, maxNewTokens, contextLimit } = c.context;
    const which = count === 1 ? '' : 'the shortest: ';
    reasons.push(`${c.exemplars > 0 ? `${n(count)} ` : ''}prompt + max new tokens longer than the model's context (${which}${n(promptTokens)} + ${n(maxNewTokens)} > ${n(contextLimit)} tokens)`);
  }
  if (c.exemplars > 0) reasons.push(`${c.exemplars === 1 ? 'one is' : `${n(c.exemplars)} are`} the prompt's own few-shot example${c.exemplars === 1 ? '' : 's'}`);
  if (reasons.length === 0) return undefined;
  const skipped = c.total - c.audited;
  return `${n(c.audited)} of ${n(c.total)} question${c.total === 1 ? '' : 's'} audited — ${n(skipped)} skipped: ${reasons.join('; ')}`;
}

/**
 * What the user can change so that skipped-for-context questions are audited, from the shortest
 * skipped prompt: fewer max new tokens is offered only when that prompt alone fits the context
 * (a 4,677-token prompt against a 512-token context is not helped by any token budget), with the
 * budget that would fit it.
 */
export function contextSkipHint(context: NonNullable<AuditedCount['context']>): string {
  const { promptTokens, contextLimit } = context;
  const rest = 'reachAudit.truncatePrompt "left" (keeps the prompt\'s last tokens), or a model with a longer context audits them.';
  if (promptTokens >= contextLimit) {
    return `The prompt alone (${n(promptTokens)} tokens) is longer than the model's context (${n(contextLimit)}), so fewer max new tokens cannot help: a shorter prompt (fewer few-shot examples: another preset), ${rest}`;
  }
  return `Max new tokens of at most ${n(contextLimit - promptTokens)} fits the shortest prompt; a shorter prompt (fewer few-shot examples: another preset), ${rest}`;
}
