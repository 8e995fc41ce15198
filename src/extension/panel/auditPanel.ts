/**
 * The audit panel host: one WebviewPanel showing one run (the panel bundle from dist/webview).
 * It sends the run when the page says it is ready (again after the panel was hidden and shown:
 * the page keeps its UI state with setState, the host re-sends the data), appends records while
 * a run is going, opens the dataset at a question's line, and writes exports.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Comparison, HostMessage, QuestionRecord, ResumeOffer, WebviewMessage } from '../../contract';
import { WebviewPageHost } from './webviewPageHost';
import { recordsToCsv, recordsToJson } from './recordExport';
import { latestComparisonOf } from './comparisonLookup';
import { loadRunFolder, runIdOf, type LoadedRun } from './runData';
import { advancedStatus, type PanelStatus } from './liveStatus';
import { revealColumn } from './revealColumn';
import { unfinishedNumbers } from './unfinishedNumbers';
import { showParquetRow } from './parquetRowView';
import { resumeOffer, type ResumeSide } from './resumeOffer';
import type { QuestionPlace } from '../../audit/dataset';
import type { RunInView } from '../runInView';

export const PANEL_VIEW_TYPE = 'reachAudit.panel';
/** The command the header's Resume runs (registered with the audit commands, which show runs in this panel). */
const RESUME_RUN_COMMAND = 'reachAudit.resumeRun';
/** The first message carries this many records (the table paints at once), the rest follow in batches. */
const FIRST_BATCH = 500;
const BATCH = 2000;

interface ShownRun {
  run: LoadedRun;
  /** The base checkpoint's run when the panel shows a comparison. */
  base?: LoadedRun;
  /** The paired numbers of base → run (comparison.json's `comparison`), sent with the base run. */
  compare?: Comparison;
  ids: Set<string>;
  status?: PanelStatus;
}

export class AuditPanelHost implements vscode.Disposable {
  private readonly page: WebviewPageHost<HostMessage, WebviewMessage>;
  private shown: ShownRun | undefined;
  /** The status of each run going now, by folder: a live run shown again (the Runs view's click) keeps its header. */
  private readonly live = new Map<string, PanelStatus>();
  private readonly following: vscode.Disposable;

  /** `inView`: the one run every surface shows; the panel sets it when it shows a run, and follows it while open. */
  constructor(
    extensionUri: vscode.Uri,
    private readonly output: vscode.OutputChannel,
    private readonly inView: RunInView,
  ) {
    this.page = new WebviewPageHost({
      viewType: PANEL_VIEW_TYPE,
      extensionUri,
      bundle: 'main',
      // The page keeps its state with setState and the host re-sends the run on `ready`.
      retainContextWhenHidden: false,
      resourceRoots: ['media'],
      logLimit: 200,
      onReady: () => this.sendRun(),
      onMessage: (m) => this.onMessage(m),
    });
    this.following = inView.onDidChange((state) => {
      if (!state) {
        // Deleted while in view: the panel closes with it, as the side bar and the marks let it go.
        if (this.shown) this.close();
        return;
      }
      if (!this.page.open || (this.shown?.run.folder === state.folder && this.shown.base?.folder === state.baseFolder)) return;
      try {
        this.show(state.folder, { preserveFocus: true, ...(state.baseFolder ? { baseFolder: state.baseFolder } : {}) });
      } catch (err) {
        this.output.appendLine(`[panel] cannot show ${state.folder}: ${(err as Error).message}`);
      }
    });
  }

  /** Closes the panel and forgets its run. */
  close(): void {
    this.shown = undefined;
    this.page.close();
  }

  /** Every message sent to the page, newest last (bounded); the test suite reads it. */
  get sent(): readonly HostMessage[] {
    return this.page.sent;
  }

  /** The page's HTML as last set. */
  get html(): string {
    return this.page.html;
  }

  get runFolder(): string | undefined {
    return this.shown?.run.folder;
  }

  get visible(): boolean {
    return this.page.visible;
  }

  /** The panel is open (shown, or a tab behind another). */
  get open(): boolean {
    return this.page.open;
  }

  /** Resolves once the page has said `ready` (or after `timeoutMs`, for a page that is not loading: hidden, or closed). */
  whenReady(timeoutMs = 15_000): Promise<void> {
    return this.page.whenReady(timeoutMs);
  }

  /**
   * Opens (or reveals) the panel on a run folder, re-reading it from disk. With `baseFolder` it
   * shows a checkpoint comparison; `compare` (the comparison's numbers, which need the base run to
   * mean anything) is dropped without it. Without `baseFolder`, a run that is the trained side of a
   * stored comparison is shown with that comparison's base and numbers.
   */
  show(folder: string, options: { preserveFocus?: boolean; status?: ShownRun['status']; baseFolder?: string; compare?: Comparison } = {}): void {
    const run = loadRunFolder(folder);
    if (!options.baseFolder && !options.status) {
      const stored = latestComparisonOf(folder);
      if (stored) options = { ...options, baseFolder: stored.base.folder, compare: stored.comparison };
    }
    const base = options.baseFolder ? loadRunFolder(options.baseFolder) : undefined;
    for (const w of [...run.warnings, ...(base?.warnings ?? [])]) this.output.appendLine(`[panel] ${w}`);
    const compare = base ? options.compare : undefined;
    if (options.status?.status === 'running') this.live.set(folder, options.status);
    const status = options.status ?? this.live.get(folder);
    this.shown = { run, base, compare, ids: new Set(run.data.records.map((r) => String(r.id))), status };
    this.inView.set(folder, base?.folder);
    this.page.show(`Reach Audit: ${run.data.label ?? run.data.runId}`, options.preserveFocus === true);
    if (this.page.ready) this.sendRun();
  }

  private sendRun(): void {
    const shown = this.shown;
    if (!shown) return;
    const { searchSweep, ...data } = shown.run.data;
    const running = shown.status?.status === 'running';
    // A stopped run has no summary: its paired routes-vs-search numbers come from its records.
    const unfinished = running ? undefined : unfinishedNumbers(data.records, data.summary !== undefined);
    // A comparison's base run goes whole: the panel pairs questions by id from the first message.
    // A run going has no sweep yet: it comes with the run's end (updateSummary / updateUnfinished).
    this.page.post({
      type: 'loadRun',
      run: { ...data, records: data.records.slice(0, FIRST_BATCH), ...(unfinished ? { unfinished } : {}), ...(searchSweep && !running ? { searchSweep } : {}) },
      ...(shown.base ? { baseRun: shown.base.data } : {}),
      ...(shown.base && shown.compare ? { compare: shown.compare } : {}),
    });
    for (let i = FIRST_BATCH; i < data.records.length; i += BATCH) {
      this.page.post({ type: 'appendRecords', runId: data.runId, records: data.records.slice(i, i + BATCH) });
    }
    if (shown.status) this.page.post({ type: 'runStatus', runId: data.runId, ...shown.status });
    this.postResumeOffer();
  }

  /** What the header offers to resume for the shown run or comparison (the suite reads it). */
  get resumeOffer(): ResumeOffer | undefined {
    const shown = this.shown;
    if (!shown) return undefined;
    const side = (run: LoadedRun): ResumeSide => ({
      name: run.data.label ?? path.basename(run.folder),
      started: run.data.manifest !== undefined,
      finished: run.data.summary !== undefined,
      imported: run.data.manifest?.imported !== undefined,
      records: run.data.records.length,
    });
    return resumeOffer({ run: side(shown.run), ...(shown.base ? { base: side(shown.base) } : {}), ...(shown.status ? { status: shown.status.status } : {}) });
  }

  private postResumeOffer(): void {
    const shown = this.shown;
    if (!shown || !this.page.ready) return;
    const offer = this.resumeOffer;
    this.page.post({ type: 'resumeOffer', runId: shown.run.data.runId, ...(offer ? { offer } : {}) });
  }

  /** A record finished in a live run: appended when the panel shows that run. */
  appendRecord(runDir: string, record: QuestionRecord): void {
    const shown = this.shown;
    if (!shown || shown.run.folder !== runDir || shown.ids.has(String(record.id))) return;
    shown.ids.add(String(record.id));
    shown.run.data.records.push(record);
    if (this.page.ready) this.page.post({ type: 'appendRecords', runId: shown.run.data.runId, records: [record] });
    // The header counts the questions held, so it moves even between the engine's progress events.
    this.progress(runDir, shown.ids.size);
  }

  /** A live run shown in the panel has `done` questions finished (of `total`): the header follows. */
  progress(runDir: string, done: number, total?: number): void {
    const going = this.live.get(runDir);
    const moved = going && advancedStatus(going, done, total);
    if (moved) this.live.set(runDir, moved);
    const shown = this.shown;
    if (!shown || shown.run.folder !== runDir) return;
    const next = advancedStatus(shown.status, done, total);
    if (!next) return;
    shown.status = next;
    if (this.page.ready) this.page.post({ type: 'runStatus', runId: shown.run.data.runId, ...next });
  }

  /** Progress or the end of a live run shown in the panel; at the end the summary is re-read. */
  setStatus(runDir: string, status: NonNullable<ShownRun['status']>): void {
    if (status.status === 'running') this.live.set(runDir, status);
    else this.live.delete(runDir);
    const shown = this.shown;
    if (!shown || shown.run.folder !== runDir) return;
    shown.status = status;
    if (status.status !== 'running') {
      const fresh = loadRunFolder(runDir);
      const searchSweep = fresh.data.searchSweep;
      if (searchSweep) shown.run.data.searchSweep = searchSweep;
      else delete shown.run.data.searchSweep;
      const sweep = searchSweep ? { searchSweep } : {};
      if (fresh.data.summary) {
        shown.run.data.summary = fresh.data.summary;
        if (this.page.ready) this.page.post({ type: 'updateSummary', runId: shown.run.data.runId, summary: fresh.data.summary, ...sweep });
      } else {
        // Stopped or failed: no summary, so the paired numbers over the questions it kept.
        const unfinished = unfinishedNumbers(shown.run.data.records, false);
        if (unfinished && this.page.ready) this.page.post({ type: 'updateUnfinished', runId: shown.run.data.runId, unfinished, ...sweep });
      }
    }
    if (this.page.ready) this.page.post({ type: 'runStatus', runId: shown.run.data.runId, ...status });
    this.postResumeOffer();
  }

  /**
   * Opens a dataset at a (1-based) line beside the panel — where that file is already shown, else
   * in the next group — keeping the focus in the panel, so the panel stays and takes the next key.
   */
  revealInDataset(file: string, line: number): Promise<vscode.TextEditor | undefined> {
    const target = vscode.Uri.file(file).toString();
    const open = vscode.window.visibleTextEditors.filter((e) => e.document.uri.toString() === target).map((e) => e.viewColumn).filter((c): c is vscode.ViewColumn => c !== undefined);
    const column = this.page.visible ? revealColumn(this.page.viewColumn, open) : undefined;
    return revealLine(file, line, { viewColumn: column ?? (this.page.visible ? vscode.ViewColumn.Beside : vscode.ViewColumn.One), preserveFocus: this.page.visible });
  }

  /** Shows a parquet benchmark's row beside the panel, as revealInDataset places a text dataset. */
  showRow(dataset: string, place: QuestionPlace): Promise<vscode.TextEditor | undefined> {
    return showParquetRow(dataset, place, { viewColumn: this.page.visible ? vscode.ViewColumn.Beside : vscode.ViewColumn.One, preserveFocus: this.page.visible });
  }

  /** Selects a question in the table (the tree's question rows and the editor commands use it); `reveal` scrolls a section of its detail into view. */
  selectQuestion(id: string, reveal?: 'mechanism' | 'depth'): void {
    if (this.page.ready) this.page.post({ type: 'selectQuestion', id, ...(reveal ? { reveal } : {}) });
  }

  private async onMessage(message: WebviewMessage): Promise<void> {
    switch (message.type) {
      case 'revealQuestion':
      case 'openDetail': {
        const record = this.shown?.run.data.records.find((r) => String(r.id) === String(message.id));
        const line = message.type === 'revealQuestion' && Number.isInteger(message.line) ? message.line : record?.line;
        const dataset = this.shown?.run.datasetPath;
        // A parquet benchmark has no lines: the question's row is shown instead.
        if (dataset && record?.place) await this.showRow(dataset, record.place);
        else if (dataset && typeof line === 'number') await this.revealInDataset(dataset, line);
        return;
      }
      case 'requestExport': {
        if (!this.shown || message.runId !== this.shown.run.data.runId) return;
        const ids = Array.isArray(message.ids) ? new Set(message.ids.map(String)) : undefined;
        const status = this.shown.status;
        await exportRecordsInteractively(this.shown.run, message.format === 'json' ? 'json' : 'csv', ids, status?.status === 'running' ? { running: true, total: status.total } : undefined);
        return;
      }
      case 'copyCommand': {
        const command = this.shown?.run.data.reproduce?.command;
        if (!command || message.runId !== this.shown?.run.data.runId) return;
        await vscode.env.clipboard.writeText(command);
        void vscode.window.showInformationMessage('Reach Audit: the command line that audits this run again is on the clipboard.');
        return;
      }
      case 'addProbes': {
        const shown = this.shown;
        if (!shown || message.runId !== shown.run.data.runId || !shown.run.data.manifest?.imported) return;
        await vscode.commands.executeCommand('reachAudit.addProbesToLog', { runDir: shown.run.folder });
        return;
      }
      case 'resumeRun': {
        const shown = this.shown;
        if (!shown || message.runId !== shown.run.data.runId) return;
        try {
          await vscode.commands.executeCommand(RESUME_RUN_COMMAND, { runDir: shown.run.folder, ...(shown.base ? { baseRunDir: shown.base.folder } : {}) });
        } finally {
          // The page hid its button when pressed: a resume refused before it started (its reason in a notice) offers it again.
          this.postResumeOffer();
        }
        return;
      }
      case 'persistState':
        // The page keeps its own state (setState); nothing to store on this side.
        return;
    }
  }

  dispose(): void {
    this.following.dispose();
    this.page.dispose();
  }
}

/** Opens a dataset file with the cursor on a (1-based) line (in the first group unless told). */
export async function revealLine(file: string, line: number, where: { viewColumn?: vscode.ViewColumn; preserveFocus?: boolean } = {}): Promise<vscode.TextEditor | undefined> {
  if (!fs.existsSync(file)) {
    void vscode.window.showWarningMessage(`Reach Audit: the run's dataset ${file} no longer exists.`);
    return undefined;
  }
  const document = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  const at = new vscode.Position(Math.max(0, Math.min(line - 1, document.lineCount - 1)), 0);
  return vscode.window.showTextDocument(document, { viewColumn: where.viewColumn ?? vscode.ViewColumn.One, preserveFocus: where.preserveFocus === true, selection: new vscode.Range(at, at), preview: false });
}

/** Writes a run's records (all, or `ids`) as CSV or JSON. */
export function writeExport(run: LoadedRun, format: 'csv' | 'json', file: string, ids?: Set<string>): number {
  const records = ids ? run.data.records.filter((r) => ids.has(String(r.id))) : run.data.records;
  fs.writeFileSync(file, format === 'csv' ? recordsToCsv(records) : recordsToJson(records));
  return records.length;
}

/** What an export of an unfinished run says about it. */
export interface ExportProgress {
  /** The run is still going (else: stopped before the end, or never finished). */
  running: boolean;
  /** Questions the run will have when done, when known. */
  total?: number;
}

/** The sentence an export's message adds for a run that is not finished; '' for a finished one. */
export function unfinishedNote(run: LoadedRun, progress: ExportProgress | undefined): string {
  const n = run.data.records.length;
  const of = progress?.total ? ` of ${progress.total}` : '';
  if (progress?.running) return ` The run is still going: these are the ${n}${of} questions finished so far.`;
  if (!run.data.summary) return ` The run is unfinished (no summary yet): these are the ${n} questions finished before it stopped.`;
  return '';
}

/**
 * Asks where to save, then writes the export and offers to open it. A run with no finished
 * question has nothing to export and says so; an unfinished one exports what is finished and says that.
 */
export async function exportRecordsInteractively(run: LoadedRun, format: 'csv' | 'json', ids?: Set<string>, progress?: ExportProgress): Promise<string | undefined> {
  if (run.data.records.length === 0) {
    void vscode.window.showInformationMessage(`Reach Audit: nothing to export yet: no question of ${run.data.label ?? run.data.runId} has finished.`);
    return undefined;
  }
  // Beside the run's files; a run folder deleted since it was opened is not offered again (saving there would recreate it).
  const where = fs.existsSync(run.folder) ? run.folder : vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath ?? path.dirname(run.folder);
  const target = await vscode.window.showSaveDialog({
    defaultUri: vscode.Uri.file(path.join(where, `${runIdOf(run.folder)}-records.${format}`)),
    filters: format === 'csv' ? { CSV: ['csv'] } : { JSON: ['json'] },
    title: `Export ${run.data.label ?? run.data.runId} records as ${format.toUpperCase()}`,
  });
  if (!target) return undefined;
  const n = writeExport(run, format, target.fsPath, ids);
  void vscode.window.showInformationMessage(`Reach Audit: exported ${n} question${n === 1 ? '' : 's'} to ${target.fsPath}.${unfinishedNote(run, progress)}`, 'Open').then((a) => {
    if (a) void vscode.window.showTextDocument(target);
  });
  return target.fsPath;
}
