/**
 * One line of mechanism.jsonl (written by `reach-audit explain` into a run folder): where, inside
 * the model, a failure-set question's right answer is lost (docs/design/repair-and-mechanism.md, "Why a reachable answer
 * does not come out"). And the run-level reading of those lines beside the repair scan.
 *
 * Every number is at the divergence point: the first generated position where the deployed output
 * and one correct probe attempt differ. `d` is the deployed token there and `g` the correct
 * attempt's; the context is the prompt plus the tokens both outputs share before it. All values
 * are under the default (identity) route, in logits.
 */

/** A token at the divergence point: its id and its text as the tokenizer decodes it. */
export interface MechanismToken {
  id: number;
  text: string;
}

/** One block at the divergence point. */
export interface BlockAccount {
  /** Logit lens after this block: logit(g) − logit(d) of the residual through the final norm and the unembedding. */
  lens: number;
  /** 1-based ranks of g and d in the lens logits after this block (1 = the top token). */
  rankG: number;
  rankD: number;
  /** Direct attribution of the block's attention output to logit(g) − logit(d), the final norm's scale frozen at the last block. */
  attention: number;
  /** The same for the block's MLP output (negative: the MLP pushes the answer away). */
  mlp: number;
}

/** Why a failure-set question has no account. */
export type MechanismSkip =
  /** No correct attempt is stored (the question is no longer reachable, e.g. after a regrade). */
  | 'no-correct-attempt'
  /** The correct attempt's tokens equal the deployed output's. */
  | 'same-tokens'
  /** One output is a prefix of the other and the model has no end-of-sequence token to name. */
  | 'no-eos';

export interface MechanismRecord {
  /** The question id (records.jsonl's). */
  id: string;
  /** Set when there is no account; the fields below are then absent. */
  skipped?: MechanismSkip;
  /** The correct attempt compared: its probe and index in that probe's attempts. */
  probe?: string;
  attempt?: number;
  /** 0-based generated position of the first difference. */
  position?: number;
  /** Tokens of the context: the prompt's and the shared generated prefix's. */
  promptTokens?: number;
  /** The last generated text both outputs share before the divergence (at most the last 80 characters). */
  sharedTail?: string;
  deployed?: MechanismToken;
  gold?: MechanismToken;
  /** The model's top token at the context; equal to `deployed` under greedy deployment and faithful tokenization. */
  top?: MechanismToken;
  /** The embedding's direct attribution to logit(g) − logit(d). */
  embedding?: number;
  /** Per block, in block order. */
  blocks?: BlockAccount[];
  /** The block whose MLP most lowers logit(g) − logit(d) (most negative MLP attribution); null when no MLP lowers it. */
  suppressor?: number | null;
  /** The block whose attention + MLP most lowers it; null when none lowers it. */
  blockSuppressor?: number | null;
}

/** Agreement of the suppressing block with a repair-scan reference, against a block drawn at random. */
export interface MechanismAgreement {
  /** Questions compared (an account with a suppressor and a reference to compare with). */
  n: number;
  agree: number;
  rate: number;
  ci: { lo: number; hi: number };
  /** Expected agreements under the null: the suppressors shuffled across the questions. */
  chanceExpected: number;
  /** One-sided p of agreeing at least this often under that permutation null. */
  p: number;
  /** The null: suppressors shuffled across questions, enumerated ('exact') or this many seeded permutations. */
  permutations: number | 'exact';
}

/** The run-level reading of mechanism.jsonl. */
export interface MechanismSummary {
  numBlocks: number;
  /** Failure-set questions, accounts written, accounts skipped. */
  failureSetSize: number;
  explained: number;
  skipped: number;
  /** How many accounts name each block as the suppressor (index = block). */
  suppressorCounts: number[];
  /** Accounts with no suppressing MLP. */
  noSuppressor: number;
  /** Share of accounts whose context's top token is the deployed token. */
  topIsDeployed: number;
  /** The repair scan's identified block, when the run has one. */
  identifiedBlock: number | null;
  /** Suppressor = identified block. */
  withIdentified?: MechanismAgreement;
  /** Suppressor among the blocks whose silenced MLP repairs the question (questions some block repairs). */
  withRepairing?: MechanismAgreement;
}

/** What the panel gets of a run's mechanism.jsonl: the failure set's accounts and their run-level reading. */
export interface MechanismData {
  accounts: MechanismRecord[];
  summary: MechanismSummary;
}
