/**
 * Prompts fitted once per audit. The KV plan fits every prompt before the run starts, to know the
 * longest one (service kvMemoryPlan.ts); the run then needs each fitted prompt again when its
 * question starts. Tokenizing is the costly part of fitting, so the plan's fits are kept here and
 * each is handed to the run once, which drops it. The store holds at most a bound of tokens: past
 * it, a question is fitted again when it runs (the same fit, so the same records), and memory stays
 * bounded on a dataset of any size.
 */
import type { TextGenerator } from '../../engine';
import type { Deployment } from '../../contract';
import type { Question } from '../dataset';
import { fitQuestionPrompt, type PromptFit } from './contextFit';

/** Tokens kept at most: about 32 MB as the arrays hold them, far more than most datasets' prompts. */
export const FITTED_PROMPT_TOKENS = 4_000_000;

export class FittedPrompts {
  private readonly fits = new Map<Question, PromptFit>();
  private held = 0;

  constructor(
    readonly deployment: Deployment,
    readonly model: TextGenerator,
    private readonly maxTokens = FITTED_PROMPT_TOKENS,
  ) {}

  /** The question's fit, kept for the run while the store has room. */
  fit(q: Question): PromptFit {
    const fit = fitQuestionPrompt(this.deployment, q, this.model);
    const tokens = 'ids' in fit ? fit.ids.length : 0;
    if (!this.fits.has(q) && this.held + tokens <= this.maxTokens) {
      this.fits.set(q, fit);
      this.held += tokens;
    }
    return fit;
  }

  /**
   * The fit kept for the question under this deployment and model (undefined: none kept, or asked
   * under others). `take` hands it over for the question's run and drops it; `peek` leaves it.
   */
  peek(q: Question, deployment: Deployment, model: TextGenerator): PromptFit | undefined {
    return deployment === this.deployment && model === this.model ? this.fits.get(q) : undefined;
  }

  take(q: Question, deployment: Deployment, model: TextGenerator): PromptFit | undefined {
    const fit = this.peek(q, deployment, model);
    if (fit === undefined) return undefined;
    this.fits.delete(q);
    this.held -= 'ids' in fit ? fit.ids.length : 0;
    return fit;
  }

  /** Tokens held now. */
  get heldTokens(): number {
    return this.held;
  }
}
