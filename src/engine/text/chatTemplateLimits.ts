/**
 * Rendering a model's chat template within bounds. A template is code from the model folder: one
 * that loops over range(100000000) would hang the audit, one that emits megabytes would exhaust
 * the tokenizer. @huggingface/jinja has no loop limit of its own and refuses a render() variable
 * named like a global, so while one rendering runs, the global range() it installs is swapped for
 * a counting one (rendering is synchronous: nothing else renders meanwhile). The rendered text is
 * bounded by the size of the messages it renders.
 *
 * Loops need no range(): three nested loops over a list the template built, or over a list given
 * with --chat-template-kwargs, ran for minutes. So, for the same span, the interpreter's evaluation
 * method and the environment's variable setting (a loop sets its variable for every item) are
 * wrapped to count steps against a fixed budget — a count, not a clock, so whether a prompt
 * renders does not depend on the machine — and evaluation refuses a value (a string, a list)
 * larger than the rendering may produce, which bounds memory where a few steps double a string.
 * The clock stays as a backstop.
 * Rendering runs in the engine process (the CLI, or the child the extension spawns), never on
 * the extension host.
 */
import { Environment, Interpreter, type Template } from '@huggingface/jinja';
import { InputError } from '../../common';
import { strftimeNowAt } from './templateDate';

/** Items range() may produce in one rendering (all calls together); real templates use a few. */
export const RANGE_ITEM_LIMIT = 100_000;
/** Wall time one rendering may take, checked at each range() call and every 4,096 steps. */
export const RENDER_TIME_LIMIT_MS = 5_000;
/**
 * Steps one rendering may take (each expression evaluated and each variable set counts one).
 * Real templates take a few dozen a message (measured: Qwen3 46, Llama-3.1 22), so this renders
 * conversations of tens of thousands of messages and stops a runaway within seconds.
 */
export const RENDER_STEP_LIMIT = 2_000_000;

/** Characters a rendering may produce: the messages four times over, plus 256 KiB of template text. */
export function outputLimit(messageChars: number): number {
  return 4 * messageChars + 256 * 1024;
}

class LimitExceeded extends Error {}

interface RenderBudget {
  items: number;
  steps: number;
  started: number;
}

/** One step of the rendering: refused past the step budget, and past the clock, read every 4,096 steps. */
function countStep(budget: RenderBudget): void {
  budget.steps++;
  if (budget.steps > RENDER_STEP_LIMIT) throw new LimitExceeded(`it took more than ${RENDER_STEP_LIMIT.toLocaleString('en-US')} evaluation steps`);
  if ((budget.steps & 4095) === 0 && Date.now() - budget.started > RENDER_TIME_LIMIT_MS) throw new LimitExceeded(`it ran longer than ${RENDER_TIME_LIMIT_MS / 1000} s`);
}

type Evaluate = Interpreter['evaluate'];
type SetVariable = Environment['setVariable'];

/** The interpreter's evaluation, counting a step for each and refusing values past `valueLimit`. */
function countingEvaluate(evaluate: Evaluate, budget: RenderBudget, valueLimit: number): Evaluate {
  return function (this: Interpreter, ...[statement, environment]: Parameters<Evaluate>) {
    countStep(budget);
    const result = evaluate.call(this, statement, environment);
    const value: unknown = result.value;
    const size = typeof value === 'string' || Array.isArray(value) ? value.length : 0;
    if (size > valueLimit) {
      const what = typeof value === 'string' ? ['string', 'characters'] : ['list', 'items'];
      throw new LimitExceeded(`it built a ${what[0]} of ${size.toLocaleString('en-US')} ${what[1]}; a rendering may produce at most ${valueLimit.toLocaleString('en-US')}`);
    }
    return result;
  };
}

/**
 * Setting a variable, counting a step: a loop sets its variable (and `loop`) for every item, even
 * with an empty body, which evaluates nothing.
 */
function countingSetVariable(setVariable: SetVariable, budget: RenderBudget): SetVariable {
  return function (this: Environment, ...[name, value]: Parameters<SetVariable>) {
    countStep(budget);
    return setVariable.call(this, name, value);
  };
}

/** Python's range() semantics, counting its items against the rendering's budget. */
function countingRange(budget: RenderBudget) {
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
  const budget = { items: 0, steps: 0, started: Date.now() };
  const range = countingRange(budget);
  const limit = outputLimit(messageChars);
  // The library's strftime_now reads the clock, zone and locale of the moment: a run pins its day (templateDate.ts).
  const strftimeNow = strftimeNowAt(templateDate);
  const set = Environment.prototype.set;
  const evaluate = Interpreter.prototype.evaluate;
  const setVariable = Environment.prototype.setVariable;
  let text: string;
  try {
    Environment.prototype.set = function (this: Environment, name: string, value: unknown) {
      return set.call(this, name, name === 'range' ? range : name === 'strftime_now' ? strftimeNow : value);
    };
    // Twice the output limit, so that the rendered text itself is measured below, with its own message.
    Interpreter.prototype.evaluate = countingEvaluate(evaluate, budget, 2 * limit);
    Environment.prototype.setVariable = countingSetVariable(setVariable, budget);
    text = template.render(variables);
  } catch (e) {
    if (e instanceof LimitExceeded) {
      throw new InputError(`${where} went past its limits (${e.message}); a chat template must render each prompt promptly: fix the template, or give the model folder one that does`);
    }
    throw new InputError(`${where} failed to render these messages (${(e as Error).message})`);
  } finally {
    Environment.prototype.set = set;
    Interpreter.prototype.evaluate = evaluate;
    Environment.prototype.setVariable = setVariable;
  }
  if (text.length > limit) {
    throw new InputError(`${where} rendered ${text.length.toLocaleString('en-US')} characters from messages of ${messageChars.toLocaleString('en-US')}; the limit is ${limit.toLocaleString('en-US')}`);
  }
  return text;
}
