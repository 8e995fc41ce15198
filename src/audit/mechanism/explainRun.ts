/**
 * Explains a finished run's failure set: for each failure-set question, the divergence point
 * between its deployed output and a correct probe attempt (divergence.ts), one inspection pass of
 * the model over that context, and the block account of the two tokens there (blockAccount.ts),
 * appended to the run's mechanism.jsonl. Questions already in the file are not explained again
 * (a stopped explain resumes). No generation runs: the outputs are the run's own, tokenized as a
 * continuation of the prompt, so under greedy deployment the deployed token is the context's top
 * token whenever the tokenizer reproduces the generated tokens (the summary reports how often).
 */
import * as path from 'node:path';
import type { BlockInspection } from '../../engine';
import type { TextGenerator } from '../../engine';
import type { MechanismRecord, MechanismSummary, QuestionRecord, RunManifest } from '../../contract';
import type { Question } from '../dataset';
import { fitQuestionPrompt } from '../probes';
import { JsonLinesAppender } from '../store';
import { AuditAborted } from '../runner';
import { questionDivergence } from './divergence';
import { accountFor } from './blockAccount';
import { MECHANISM_FILE, readMechanism } from './mechanismStore';
import { failureSetOf, summarizeRun } from './mechanismSummary';
import { staleAccountDifference } from './staleAccount';

/** What explain needs of a model: the local engine's inspection call and its tokenizer. */
export interface BlockInspector extends TextGenerator {
  encodeText(text: string): number[];
  readonly eosIds: readonly number[];
  inspect(ids: readonly number[]): Promise<BlockInspection>;
}

/** The last `n` characters, with an ellipsis when cut. */
function tail(text: string, n: number): string {
  return text.length <= n ? text : `…${text.slice(text.length - n + 1)}`;
}

/** One failure-set question's account (or why it has none). */
export async function explainQuestion(model: BlockInspector, manifest: Pick<RunManifest, 'deployment'>, record: QuestionRecord, question: Question): Promise<MechanismRecord> {
  const point = questionDivergence(model, record);
  if ('skipped' in point) return { id: record.id, skipped: point.skipped };
  const { shared, d, g } = point;
  const fit = fitQuestionPrompt(manifest.deployment, question, model);
  if ('skipped' in fit) throw new Error(`question ${record.id}: its prompt no longer fits the context (${fit.skipped.message})`);
  const context = [...fit.ids, ...shared];
  const account = accountFor(await model.inspect(context), g, d);
  const token = (id: number) => ({ id, text: model.decode([id]) });
  return {
    id: record.id,
    probe: point.probe,
    attempt: point.attempt,
    position: point.position,
    promptTokens: fit.ids.length,
    sharedTail: tail(model.decode(shared), 80),
    deployed: token(d),
    gold: token(g),
    top: token(account.top),
    embedding: account.embedding,
    blocks: account.blocks,
    suppressor: account.suppressor,
    blockSuppressor: account.blockSuppressor,
  };
}

export interface ExplainOptions {
  folder: string;
  manifest: RunManifest;
  records: readonly QuestionRecord[];
  /** The run's questions by id (the dataset the manifest names). */
  questions: ReadonlyMap<string, Question>;
  model: BlockInspector;
  /** Only these failure-set questions (all when absent). */
  ids?: readonly string[];
  signal?: AbortSignal;
  /** Each account as it is written, with how many are done of how many to do. */
  onAccount?: (account: MechanismRecord, done: number, total: number) => void;
}

export interface ExplainResult {
  /** Every account in mechanism.jsonl for the failure set (earlier ones included), in record order. */
  accounts: MechanismRecord[];
  /** Accounts written by this call. */
  written: number;
  /**
   * Block applications of this call's inspection passes, counted as a generation's cost counts them
   * (route length × tokens processed): two rows (MLP open and closed) per context token per block.
   */
  blockApplications: number;
  summary: MechanismSummary;
  warnings: string[];
}

/** At most this many edited questions are named one by one; the rest are counted. */
const STALE_NAMED = 5;

/**
 * A warning per stored account whose record's outputs were edited after it was written. The stored
 * account is still shown (with the warning): it is a true account of the outputs it names, and one
 * edited line should not stop the rest of the run's accounts; deleting its line recomputes it.
 */
function staleAccountWarnings(file: string, records: readonly QuestionRecord[], have: ReadonlyMap<string, MechanismRecord>, model: BlockInspector): string[] {
  const stale: string[] = [];
  for (const record of records) {
    const now = questionDivergence(model, record);
    const sharedTail = 'skipped' in now ? '' : tail(model.decode(now.shared), 80);
    const difference = staleAccountDifference(have.get(record.id)!, now, (ids) => model.decode(ids), sharedTail);
    if (difference) stale.push(`${file}: question ${JSON.stringify(record.id)}: records.jsonl was edited after this account was written: ${difference}. The stored account is shown; delete its line and run explain again to recompute it`);
  }
  if (stale.length <= STALE_NAMED) return stale;
  return [...stale.slice(0, STALE_NAMED), `${file}: ${stale.length - STALE_NAMED} more accounts no longer match their records in records.jsonl`];
}

export async function explainRun(options: ExplainOptions): Promise<ExplainResult> {
  const { folder, manifest, records, model } = options;
  const failures = failureSetOf(records, manifest);
  const wanted = options.ids ? new Set(options.ids) : null;
  const existing = readMechanism(folder, manifest.model.numBlocks);
  const have = new Map(existing.values.map((a) => [a.id, a]));
  const todo = failures.filter((r) => !have.has(r.id) && (!wanted || wanted.has(r.id)));
  const file = path.join(folder, MECHANISM_FILE);
  const warnings = [...existing.warnings, ...staleAccountWarnings(file, failures.filter((r) => have.has(r.id) && (!wanted || wanted.has(r.id))), have, model)];
  let written = 0;
  let blockApplications = 0;
  if (todo.length > 0) {
    const appender = new JsonLinesAppender(file);
    try {
      for (const record of todo) {
        if (options.signal?.aborted) throw new AuditAborted();
        const question = options.questions.get(record.id);
        if (!question) throw new Error(`question ${record.id} of records.jsonl is not in the dataset ${manifest.dataset.path}`);
        const account = await explainQuestion(model, manifest, record, question);
        appender.append(account);
        have.set(account.id, account);
        written++;
        if (account.promptTokens !== undefined && account.position !== undefined) blockApplications += 2 * model.numBlocks * (account.promptTokens + account.position);
        options.onAccount?.(account, written, todo.length);
      }
    } finally {
      appender.close();
    }
  }
  const accounts = failures.map((r) => have.get(r.id)).filter((a): a is MechanismRecord => a !== undefined);
  return { accounts, written, blockApplications, summary: summarizeRun(manifest, records, accounts), warnings };
}
