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
  /** Mean token log-probability of the output; null when nothing was generated. */
  logprob?: number | null;
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
    /** The audit writes null when nothing could be measured (an empty selection or held-out half). */
    identifiedBlock?: number | null;
    repairRate?: number | null;
    ci?: Interval | null;
    damageRate?: number | null;
    damageCi?: Interval | null;
    /** Size of the held-out half the identified block's repair rate is scored on. */
    n?: number;
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

/**
 * Checkpoint comparison (design section 1). A structural copy of `Comparison` in
 * src/audit/results/compare.ts, kept by hand because the webview must not import from src/ (it is bundled
 * for the browser and stays DOM-side). The extension assigns a `Comparison` to this type, so tsc
 * reports a field that drifted; test/unit/webview/comparisonModel.test.ts checks both directions.
 */
export type ComparedState = 'realized' | 'reachable' | 'unreached';

/** One paired yes/no measure on both checkpoints: tuned − base with a paired bootstrap interval. */
export interface PairedDelta {
  /** Share of the paired questions, base checkpoint. */
  base: number;
  tuned: number;
  /** tuned − base. */
  delta: number;
  /** 95% paired bootstrap interval of the difference. */
  ci: { lo: number; hi: number };
  /** Exact McNemar p-value on the discordant pairs. */
  mcnemarP: number;
  /** Base yes, tuned no. */
  lost: number;
  /** Base no, tuned yes. */
  gained: number;
  n: number;
}

/** A share of the newly realized questions with its Wilson 95% interval, and which questions. */
export interface ComparedRate {
  n: number;
  successes: number;
  rate: number;
  ci: { lo: number; hi: number };
  ids: string[];
}

export interface CompareSummary {
  /** Questions present in both runs (every number is over these). */
  n: number;
  /** Questions present in only one of the runs (left out of every number). */
  unmatched: { baseOnly: string[]; tunedOnly: string[] };
  realized: PairedDelta;
  /** Reachable by any probe: the reachable ceiling. */
  reachableCeiling: PairedDelta;
  reachable: Record<string, PairedDelta>;
  /** transitions[base state][tuned state] = question ids. */
  transitions: Record<ComparedState, Record<ComparedState, string[]>>;
  newlyRealized: {
    n: number;
    /** Already reachable by the base model: training realized what was reachable. */
    alreadyReachable: ComparedRate;
    /** Unreached by the base model: training made them reachable. */
    newlyReachable: ComparedRate;
  };
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
      /** The paired comparison of `baseRun` → `run` (only with `baseRun`). */
      compare?: CompareSummary;
    }
  | { type: 'appendRecords'; runId: string; records: AuditRecord[] }
  | { type: 'updateSummary'; runId: string; summary: RunSummary }
  | { type: 'runStatus'; runId: string; status: RunStatus; done: number; total: number; message?: string }
  | { type: 'selectQuestion'; id: QuestionId };

export type PanelTab = 'questions' | 'charts';

export type SortKey = 'id' | 'question' | 'gold' | 'answer' | 'state';

/** What the panel persists (VS Code webview state) so it comes back the same when shown again. */
/** The question table's column widths in px, by column; a missing column keeps its default. */
export type ColumnWidths = Partial<Record<SortKey, number>>;

export interface PanelUiState {
  sort: { key: SortKey; descending: boolean };
  /** A state filter (see questionState.ts STATE_FILTERS) or 'all'. */
  filter: string;
  search: string;
  truncatedOnly: boolean;
  selectedId?: string;
  scrollTop: number;
  tab: PanelTab;
  /** A comparison count filtering the table (comparisonModel.ts selection key); absent: none. */
  compareFilter?: string;
  /** The Comparison section was folded by the user; absent: unfolded. */
  compareFolded?: boolean;
  /** Column widths the user set by dragging; absent: the defaults. */
  columns?: ColumnWidths;
}

/** Webview → extension host. */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'revealQuestion'; runId: string; id: QuestionId; line: number }
  | { type: 'requestExport'; runId: string; format: 'csv' | 'json'; ids?: QuestionId[] }
  | { type: 'openDetail'; runId: string; id: QuestionId }
  | { type: 'persistState'; state: PanelUiState };
