/**
 * Messages between the extension host and the audit panel webview, and the run data they carry.
 *
 * The record and summary shapes follow the run-store contract of the audit issue (records.jsonl,
 * summary.json). Everything beyond the contract's required keys is optional, because the panel must
 * show partial runs (a run still going, a run without a repair scan, an older run). This file is
 * DOM-free and import-free: the extension imports it type-only, the webview bundles it.
 */

/** A question id as written in the dataset (`id`), or its line number when the dataset has none. */
export type QuestionId = string | number;

/** `[low, high]` in 0..1. Summaries written by other tools may use an object; both are accepted. */
export type Interval = [number, number] | { low: number; high: number } | { lo: number; hi: number };

/** A grade of one output: the extracted answer, whether it equals gold, and the rule that matched. */
export interface Grade {
  output: string;
  answer: string | null;
  correct: boolean;
  truncated?: boolean;
  /** The extraction rule that matched, e.g. `strict` (`#### N`) or `flexible` (last number). */
  rule?: string;
}

export interface ProbeAttempt {
  /** Block indices executed in order (routes and search probes). */
  route?: number[];
  seed?: number;
  output: string;
  answer: string | null;
  correct: boolean;
  /** Mean token log-probability of the output. */
  logprob?: number;
  rule?: string;
  truncated?: boolean;
}

export interface ProbeResult {
  budget: number;
  attempts: ProbeAttempt[];
  /** Per-attempt correctness, in attempt order. */
  correct: boolean[];
}

export interface BlindPick {
  answer: string | null;
  correct: boolean;
}

export interface RepairResult {
  inFailureSet: boolean;
  /** Keyed by block index (JSON object keys are strings). */
  correctBySilencedBlock: Record<string, boolean>;
}

/** One line of records.jsonl. */
export interface AuditRecord {
  id: QuestionId;
  /** 1-based line of the question in the dataset file. */
  line: number;
  gold: string | null;
  /** The question text as the user wrote it in the dataset. */
  question?: string;
  /** The full prompt the deployment sent, when the run kept it. */
  prompt?: string;
  realized: Grade;
  probes?: Record<string, ProbeResult>;
  reachable?: Record<string, boolean>;
  blind?: Record<string, Record<string, BlindPick>>;
  repair?: RepairResult;
}

export interface RateWithInterval {
  rate: number;
  ci?: Interval;
  n?: number;
}

export interface RepairByBlock {
  block: number;
  repairRate?: number;
  repaired?: number;
  ci?: Interval;
  damageRate?: number;
  damaged?: number;
  damageCi?: Interval;
  n?: number;
}

/** summary.json. */
export interface RunSummary {
  n: number;
  realized?: RateWithInterval;
  reachable?: Record<string, RateWithInterval>;
  passAtK?: Record<string, Record<string, number>>;
  blind?: Record<string, Record<string, RateWithInterval>>;
  repair?: {
    failureSetSize: number;
    identifiedBlock?: number;
    repairRate?: number;
    ci?: Interval;
    damageRate?: number;
    damageCi?: Interval;
    /** Size of the held-out half the identified block's repair rate is scored on. */
    heldOutSize?: number;
    byBlock?: RepairByBlock[];
  };
  budget?: Record<string, { generations: number; tokens: number; blockApplications: number }>;
}

/** manifest.json. Only the fields the panel shows are typed; the rest is passed through. */
export interface RunManifest {
  name?: string;
  createdAt?: string;
  model?: { path?: string; hash?: string; numBlocks?: number; architecture?: string };
  dataset?: { path?: string; hash?: string; format?: string; size?: number };
  deployment?: { maxNewTokens?: number; decoding?: string; [key: string]: unknown };
  probes?: { name: string; budget: number; [key: string]: unknown }[] | Record<string, unknown>;
  seed?: number;
  engineVersion?: string;
  [key: string]: unknown;
}

/** One run as the panel receives it. */
export interface RunData {
  /** Stable id of the run (its folder name); messages about the run carry it. */
  runId: string;
  /** Short label shown in the header and chart legends, e.g. "tuned" or the run folder name. */
  label?: string;
  manifest: RunManifest;
  summary?: RunSummary;
  records: AuditRecord[];
}

/** Paired comparison numbers (compare command): differences with paired bootstrap intervals. */
export interface CompareSummary {
  n?: number;
  realized?: { delta: number; ci?: Interval; mcnemarP?: number };
  reachable?: Record<string, { delta: number; ci?: Interval }>;
  /** Newly realized questions split by whether the base model already reached them. */
  newlyRealized?: { alreadyReachable: number; newlyReachable: number; probe?: string };
  [key: string]: unknown;
}

export type RunStatus = 'running' | 'done' | 'cancelled' | 'failed';

/**
 * Extension host → webview.
 *
 * Large runs: send `loadRun` with the first ~500 records, then the rest as `appendRecords` batches
 * of ~2,000. The table shows as soon as the first message lands (one 10,000-question message is
 * ~60 MB of JSON and takes seconds to cross into the webview). A live run uses the same
 * `appendRecords` as questions finish, with `runStatus` for progress.
 */
export type HostMessage =
  | {
      type: 'loadRun';
      run: RunData;
      /** The base checkpoint's run when comparing (this run is the trained one). */
      baseRun?: RunData;
      compare?: CompareSummary;
    }
  | { type: 'appendRecords'; runId: string; records: AuditRecord[] }
  | { type: 'updateSummary'; runId: string; summary: RunSummary }
  | { type: 'runStatus'; runId: string; status: RunStatus; done: number; total: number; message?: string }
  | { type: 'selectQuestion'; id: QuestionId };

export type PanelTab = 'questions' | 'charts';

export type SortKey = 'id' | 'question' | 'gold' | 'answer' | 'state';

/** What the panel persists (VS Code webview state) so it comes back the same when shown again. */
export interface PanelUiState {
  sort: { key: SortKey; descending: boolean };
  /** A state filter (see questionState.ts STATE_FILTERS) or 'all'. */
  filter: string;
  search: string;
  truncatedOnly: boolean;
  selectedId?: string;
  scrollTop: number;
  tab: PanelTab;
}

/** Webview → extension host. */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'revealQuestion'; runId: string; id: QuestionId; line: number }
  | { type: 'requestExport'; runId: string; format: 'csv' | 'json'; ids?: QuestionId[] }
  | { type: 'openDetail'; runId: string; id: QuestionId }
  | { type: 'persistState'; state: PanelUiState };
