/**
 * Rendering a model's chat template within bounds. A template is code from the model folder: one
 * that loops over range(100000000) would hang the audit, one that emits megabytes would exhaust
 * the tokenizer. @huggingface/jinja has no loop limit of its own and refuses a render() variable
 * named like a global, so while one rendering runs, the global range() it installs is swapped for
 * a counting one (rendering is synchronous: nothing else renders meanwhile). The rendered text is
 * bounded by the size of the messages it renders.
 */
import { Environment, type Template } from '@huggingface/jinja';
import { InputError } from '../../common';
import { strftimeNowAt } from './templateDate';

/** Items range() may produce in one rendering (all calls together); real templates use a few. */
export const RANGE_ITEM_LIMIT = 100_000;
/** Wall time one rendering may take, checked at each range() call. */
export const RENDER_TIME_LIMIT_MS = 5_000;

/** Characters a rendering may produce: the messages four times over, plus 256 KiB of template text. */
export function outputLimit(messageChars: number): number {
  return 4 * messageChars + 256 * 1024;
}

class LimitExceeded extends Error {}

/** Python's range() semantics, counting its items against the rendering's budget. */
function countingRange(budget: { items: number; started: number }) {
  return (start: number, stop?: number, step = 1): number[] => {
    if (stop === undefined) {
      stop = start;
      start = 0;
    }
    if (step === 0) throw new Error('range() step must not be zero');
    const count = Math.max(0, Math.ceil((stop - start) / step));
    if (!Number.isFinite(count) || budget.items + count > RANGE_ITEM_LIMIT) {
      throw new LimitExceeded(`range() would produce ${Number.isFinite(count) ? count.toLocaleString('en-US') : 'unboundedly many'} items; a rendering may use at most ${RANGE_ITEM_LIMIT.toLocaleString('en-US')}`);
    }
    if (Date.now() - budget.started > RENDER_TIME_LIMIT_MS) throw new LimitExceeded(`it ran longer than ${RENDER_TIME_LIMIT_MS / 1000} s`);
    budget.items += count;
    const out: number[] = [];
    for (let i = 0; i < count; i++) out.push(start + i * step);
    return out;
  };
}

/**
 * Renders `template` with `variables`; `where` names the template (file and field) in errors;
 * strftime_now answers with `templateDate` (YYYY-MM-DD; default today, UTC).
 * A template that exceeds a limit, or throws, is an InputError.
 */
export function renderChatTemplate(template: Template, variables: Record<string, unknown>, where: string, messageChars: number, templateDate?: string): string {
  const budget = { items: 0, started: Date.now() };
  const range = countingRange(budget);
  // The library's strftime_now reads the clock, zone and locale of the moment: a run pins its day (templateDate.ts).
  const strftimeNow = strftimeNowAt(templateDate);
  const set = Environment.prototype.set;
  let text: string;
  try {
    Environment.prototype.set = function (this: Environment, name: string, value: unknown) {
      return set.call(this, name, name === 'range' ? range : name === 'strftime_now' ? strftimeNow : value);
    };
    text = template.render(variables);
  } catch (e) {
    if (e instanceof LimitExceeded) throw new InputError(`${where} went past its limits (${e.message}); a chat template must render each prompt promptly`);
    throw new InputError(`${where} failed to render these messages (${(e as Error).message})`);
  } finally {
    Environment.prototype.set = set;
  }
  const limit = outputLimit(messageChars);
  if (text.length > limit) {
    throw new InputError(`${where} rendered ${text.length.toLocaleString('en-US')} characters from messages of ${messageChars.toLocaleString('en-US')}; the limit is ${limit.toLocaleString('en-US')}`);
  }
  return text;
}
