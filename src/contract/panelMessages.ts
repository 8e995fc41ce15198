/**
 * Messages between the extension host and the audit panel webview. The run data they carry is the
 * run files' own types: the extension validates the files when it reads them and sends them as they are.
 */
import type { Comparison } from './comparison';
import type { QuestionRecord } from './runRecord';
import type { RunManifest } from './runManifest';
import type { ChanceSummary, ProbeComparison, RunSummary } from './runSummary';
import type { SearchSweepNumbers } from './searchSweep';
import type { MechanismData } from './mechanismRecord';

/**
 * A run without summary.json (stopped, or still going): the paired routes-vs-search comparison
 * the audit would write, computed by the extension over the questions finished so far, so the
 * panel need not say "no paired comparison" of a run that has one.
 */
export interface UnfinishedNumbers {
  /** Questions finished when it was computed. */
  n: number;
  routesVsSearch?: ProbeComparison;
  chance?: ChanceSummary;
}

/** The `reach-audit audit` line that audits a run again (from its manifest), and what it cannot carry. */
export interface RunCommandLine {
  command: string;
  gaps: string[];
}

/** One run as the panel receives it. */
export interface RunData {
  /** Stable id of the run (its folder name); messages about the run carry it. */
  runId: string;
  /** Short label shown in the header and chart legends, e.g. "tuned" or the run folder name. */
  label?: string;
  /** Absent when the run folder has no readable manifest (the panel still shows the records). */
  manifest?: RunManifest;
  /** Absent while the run is going or when it stopped before writing one. */
  summary?: RunSummary;
  /** Only without `summary`: the paired numbers over the finished records. */
  unfinished?: UnfinishedNumbers;
  records: QuestionRecord[];
  /** The run's mechanism.jsonl (`reach-audit explain`), when it has one. */
  mechanism?: MechanismData;
  /** The command behind the run; absent without a manifest. */
  reproduce?: RunCommandLine;
  /** The search over its exploration sweep (--search-sweep), from the records; absent without one, and while the run is going. */
  searchSweep?: SearchSweepNumbers;
}

export type RunStatus = 'running' | 'done' | 'cancelled' | 'failed';

/** The shown run (or comparison) stopped before its end and can be continued in its folder: the header offers Resume. */
export interface ResumeOffer {
  /** A comparison: Resume finishes both runs and then compares them. */
  comparison: boolean;
  /** What the header says when no status line does (a run cut by a window reload or a crash). */
  note?: string;
}

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
      compare?: Comparison;
    }
  | { type: 'appendRecords'; runId: string; records: QuestionRecord[] }
  /** The run ended: its summary (or, stopped, the paired numbers over its finished questions), with its sweep when it has one. */
  | { type: 'updateSummary'; runId: string; summary: RunSummary; searchSweep?: SearchSweepNumbers }
  | { type: 'updateUnfinished'; runId: string; unfinished: UnfinishedNumbers; searchSweep?: SearchSweepNumbers }
  | { type: 'runStatus'; runId: string; status: RunStatus; done: number; total: number; message?: string }
  /** Whether the header offers Resume (absent `offer`: not, the run is going or finished). */
  | { type: 'resumeOffer'; runId: string; offer?: ResumeOffer }
  /** `reveal`: a section of the question's detail to scroll into view (Explain This Question's "Why not realized", Find Where This Answer Is Lost's depth marks). */
  | { type: 'selectQuestion'; id: string; reveal?: 'mechanism' | 'depth' };

export type PanelTab = 'questions' | 'comparison' | 'charts';

export type SortKey = 'id' | 'question' | 'gold' | 'answer' | 'state';

/** The question table's column widths in px, by column; a missing column keeps its default. */
export type ColumnWidths = Partial<Record<SortKey, number>>;

/** What the panel persists (VS Code webview state) so it comes back the same when shown again. */
export interface PanelUiState {
  sort: { key: SortKey; descending: boolean };
  /** A state filter of the panel's state dropdown, or 'all'. */
  filter: string;
  search: string;
  truncatedOnly: boolean;
  selectedId?: string;
  /** The run the scroll position belongs to: another run's offset means nothing, so it starts at the top. */
  runId?: string;
  scrollTop: number;
  tab: PanelTab;
  /** A comparison count filtering the table (the panel's selection key); absent: none. */
  compareFilter?: string;
  /** Column widths the user set by dragging; absent: the defaults. */
  columns?: ColumnWidths;
}

/** Webview → extension host. */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'revealQuestion'; runId: string; id: string; line: number }
  | { type: 'requestExport'; runId: string; format: 'csv' | 'json'; ids?: string[] }
  | { type: 'openDetail'; runId: string; id: string }
  | { type: 'persistState'; state: PanelUiState }
  /** Copy the run's command line (the host writes the clipboard: a webview may not). */
  | { type: 'copyCommand'; runId: string }
  /** An imported run's Add Probes to This Log… (the host asks the model, the dataset and the probes). */
  | { type: 'addProbes'; runId: string }
  /** The header's Resume: continue the shown run (or comparison) in its folder. */
  | { type: 'resumeRun'; runId: string };
