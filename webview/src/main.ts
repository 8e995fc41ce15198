/**
 * The audit panel: wires the question table, the detail pane, the charts, the headline and (when
 * comparing checkpoints) the Comparison section to the extension's messages (src/contract/panelMessages.ts), and
 * keeps the UI state across hide/show.
 */
import { RunCommandView } from './headline/runCommandView';
import { ResumeView } from './headline/resumeView';
import {
  provideVSCodeDesignSystem,
  vsCodeButton,
  vsCodeCheckbox,
  vsCodeDropdown,
  vsCodeOption,
  vsCodePanels,
  vsCodePanelTab,
  vsCodePanelView,
  vsCodeProgressRing,
  vsCodeTextField,
} from '@vscode/webview-ui-toolkit';
import '../styles/panel.css';
import { ChartsView, type ChartRun } from './charts/charts';
import { resolveSelection, type CompareSelection } from './comparison/comparisonModel';
import { ComparisonView } from './comparison/comparisonView';
import { gainSetRows, type GainSetRow } from './comparison/gainSetRows';
import { DetailPane } from './questions/detailPane';
import { count, h, replaceChildren } from './common/element';
import { activeTab, isChecked, setActiveTab, setChecked, setValue, valueOf } from './common/toolkit';
import { renderHeadline } from './headline/headline';
import { smallSampleNote } from './comparison/smallSampleNote';
import { renderStory } from './headline/storyView';
import { type Comparison, type HostMessage, type PanelUiState, type ResumeOffer, type RunData, type RunStatus, type SortKey, type WebviewMessage, RATE_MIN_QUESTIONS, auditedCount, skippedText } from '../../src/contract';
import { QuestionIndex, type Query } from './questions/questionIndex';
import { BASE_FILTERS, findFilter, interfaceFailureFilter, probeFilter, type QuestionRow, type StateFilter } from './questions/questionRow';
import { QuestionTable } from './questions/questionTable';
import { computeStatistics, countBlocks, type RunStatistics } from './charts/runStatistics';
import { sweepView, type SweepView } from './charts/sweepRows';
import { forkPositions } from './charts/forkPositions';
import { readUiState } from './uiState';

provideVSCodeDesignSystem().register(
  vsCodeButton(),
  vsCodeCheckbox(),
  vsCodeDropdown(),
  vsCodeOption(),
  vsCodePanels(),
  vsCodePanelTab(),
  vsCodePanelView(),
  vsCodeProgressRing(),
  vsCodeTextField(),
);

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: PanelUiState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();

/** A loaded run with its index and (lazily) its statistics. */
interface LoadedRun {
  data: RunData;
  index: QuestionIndex;
  numBlocks: number;
  stats?: RunStatistics;
}


class AuditPanel {
  private state: PanelUiState;
  private run: LoadedRun | undefined;
  private base: LoadedRun | undefined;
  private compare: Comparison | undefined;
  /** The comparison count filtering the table, with its ids as a set for the query. */
  private selection: (CompareSelection & { idSet: ReadonlySet<string> }) | undefined;
  private status: { status: RunStatus; done: number; total: number; message?: string } | undefined;
  private filters: StateFilter[] = BASE_FILTERS.slice();
  private shown: QuestionRow[] = [];
  /** The run's questions when `shown` was last queried: the count and Export speak of that moment. */
  private shownOf = 0;
  private pendingRestore: { selectedId?: string; scrollTop?: number } | undefined;

  private readonly table: QuestionTable;
  private readonly detail: DetailPane;
  private readonly charts: ChartsView;
  private readonly comparison: ComparisonView;
  private readonly chip = h('span', { class: 'filter-chip', hidden: true });
  private readonly title = h('h1', { class: 'run-title' }, 'Reach Audit');
  private readonly subtitle = h('div', { class: 'run-subtitle muted' });
  private readonly runCommand = new RunCommandView(() => this.run && this.post({ type: 'copyCommand', runId: this.run.data.runId }));
  /** An imported run: its questions were not probed; Add Probes to This Log… probes them (the host asks what with). */
  private readonly importedNote = h('span', { class: 'imported-note-text muted' });
  private readonly addProbes = h('vscode-button', { class: 'add-probes', appearance: 'secondary', title: 'Run probes on the model this log was made with; its logged outputs stay the deployed answers' }, 'Add Probes to This Log…');
  private readonly imported = h('div', { class: 'imported-note', hidden: true }, this.importedNote, this.addProbes);
  private readonly statusBox = h('div', { class: 'run-status', role: 'status', 'aria-live': 'polite' });
  private readonly resume = new ResumeView(() => this.run && this.post({ type: 'resumeRun', runId: this.run.data.runId }));
  /** The host's last word on Resume for the shown run. */
  private resumeOffer: ResumeOffer | undefined;
  private readonly headline = h('div', { class: 'headline', 'aria-label': 'Headline numbers' });
  private readonly search: HTMLElement;
  private readonly filterBox: HTMLElement;
  private readonly truncated: HTMLElement;
  private readonly countText = h('span', { class: 'count muted', 'aria-live': 'polite' });
  private readonly countBadge: HTMLElement;
  private readonly panels: HTMLElement;
  private readonly comparisonTab: HTMLElement;
  private readonly split: HTMLElement;
  private exportButtons: [HTMLElement, string][] = [];

  private refreshFrame = 0;
  private statsTimer: ReturnType<typeof setTimeout> | undefined;
  /** Questions the headline's numbers were last drawn over, while a run goes (the status line counts the same). */
  private numbersOver: number | undefined;
  private statsDirty = true;
  private chartsDirty = true;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(root: HTMLElement) {
    this.state = readUiState(vscode.getState());

    this.table = new QuestionTable({
      onSelect: (row) => this.showDetail(row),
      onActivate: (row) => this.reveal(row),
      onSort: (key) => this.sortBy(key),
      onScroll: (top) => {
        if (this.pendingRestore?.scrollTop !== undefined) return;
        this.state.scrollTop = top;
        this.save(true);
      },
      onResize: (widths) => {
        this.state.columns = widths;
        this.save(false);
      },
    });
    this.table.setColumnWidths(this.state.columns);
    this.detail = new DetailPane({
      reveal: (row) => this.reveal(row),
      open: (row) => this.post({ type: 'openDetail', runId: this.run?.data.runId ?? '', id: row.record.id }),
      showInTable: (row) => this.selectQuestion(row.id),
    });
    this.charts = new ChartsView((id) => {
      this.setTab('questions');
      this.selectQuestion(id);
    });

    this.comparison = new ComparisonView({
      select: (key) => {
        const clear = this.selection?.key === key;
        this.setSelection(clear ? undefined : key);
        // The count's questions are in the Questions tab: show them, the keyboard in their table (clearing stays here).
        if (!clear) {
          this.setTab('questions');
          this.table.focus();
        }
      },
    });

    this.search = h('vscode-text-field', { class: 'search', placeholder: 'Search id, question, gold, answer', 'aria-label': 'Search questions', value: this.state.search });
    this.search.addEventListener('input', () => {
      this.state.search = valueOf(this.search);
      this.applyQuery(true);
    });
    this.filterBox = h('vscode-dropdown', { class: 'filter', 'aria-label': 'Filter by state' });
    this.filterBox.addEventListener('change', () => {
      this.state.filter = valueOf(this.filterBox);
      this.applyQuery(true);
    });
    this.truncated = h('vscode-checkbox', { checked: this.state.truncatedOnly }, 'Truncated only');
    this.truncated.addEventListener('change', () => {
      this.state.truncatedOnly = isChecked(this.truncated);
      this.applyQuery(true);
    });
    this.fillFilterOptions();

    this.addProbes.addEventListener('click', () => this.run && this.post({ type: 'addProbes', runId: this.run.data.runId }));

    const exportCsv = h('vscode-button', { class: 'export-csv', appearance: 'secondary', disabled: true }, 'Export CSV');
    exportCsv.addEventListener('click', () => this.requestExport('csv'));
    const exportJson = h('vscode-button', { class: 'export-json', appearance: 'secondary', disabled: true }, 'Export JSON');
    exportJson.addEventListener('click', () => this.requestExport('json'));
    this.exportButtons = [[exportCsv, 'CSV'], [exportJson, 'JSON']];

    // Not vscode-badge: its template binds a style attribute, which the strict CSP reports.
    this.countBadge = h('span', { class: 'badge' }, '0');
    const toolbar = h('div', { class: 'toolbar', role: 'search' }, this.search, this.filterBox, this.truncated, this.chip, this.countText);
    this.split = h('div', { class: 'split' }, h('div', { class: 'table-pane' }, this.table.element), this.detail.element);
    // The comparison has a tab of its own (comparisonView.ts says why), shown only with a comparison.
    this.comparisonTab = h('vscode-panel-tab', { id: 'tab-comparison', hidden: true }, 'Comparison');
    this.panels = h(
      'vscode-panels',
      { class: 'tabs', activeid: `tab-${this.state.tab}`, 'aria-label': 'Audit views' },
      h('vscode-panel-tab', { id: 'tab-questions' }, 'Questions', this.countBadge),
      this.comparisonTab,
      h('vscode-panel-tab', { id: 'tab-charts' }, 'Charts'),
      h('vscode-panel-view', { id: 'view-questions', class: 'view view-questions' }, toolbar, this.split),
      h('vscode-panel-view', { id: 'view-comparison', class: 'view view-comparison' }, this.comparison.element),
      h('vscode-panel-view', { id: 'view-charts', class: 'view view-charts' }, this.charts.element),
    );
    // Once the user acts on the table, a stored position still waiting for its rows is dropped.
    for (const type of ['pointerdown', 'keydown', 'wheel']) this.table.element.addEventListener(type, () => (this.pendingRestore = undefined), { passive: true });
    // A question picked in the table brings the table and its detail whole into view (the page
    // scrolls when the header, the headline and the tabs are taller than the panel).
    for (const type of ['click', 'keydown']) this.table.element.addEventListener(type, () => this.questionsInView(), { passive: true });
    this.panels.addEventListener('change', () => {
      const id = activeTab(this.panels);
      const tab = id === 'tab-charts' ? 'charts' : id === 'tab-comparison' ? 'comparison' : 'questions';
      if (tab !== this.state.tab) {
        this.state.tab = tab;
        this.save(false);
      }
      if (tab === 'charts') this.drawCharts();
    });

    replaceChildren(
      root,
      h('header', { class: 'topbar' },
        h('div', { class: 'run-heading' }, this.title, this.subtitle, this.imported, this.runCommand.element),
        this.statusBox,
        this.resume.element,
        h('div', { class: 'topbar-actions' }, exportCsv, exportJson)),
      this.headline,
      this.panels,
    );
    this.table.setSort(this.state.sort.key, this.state.sort.descending);
    this.renderEmpty();

    window.addEventListener('message', (event: MessageEvent<HostMessage>) => this.onMessage(event.data));
    new MutationObserver(() => this.charts.retheme()).observe(document.body, { attributes: true, attributeFilter: ['class'] });
    this.post({ type: 'ready' });
  }

  /** The imported-log note: the harness (text only: it is the log's), and that no probe ran on its questions. */
  private showImported(manifest: RunData['manifest']): void {
    const imported = manifest?.imported;
    this.imported.hidden = !imported;
    if (!imported) return;
    const tool = typeof imported.tool === 'string' && imported.tool !== '' ? imported.tool : 'a harness';
    this.importedNote.textContent = `Imported from ${tool}'s log: its outputs are the deployed answers; no probe ran on its questions (not probed).`;
  }

  private post(message: WebviewMessage): void {
    vscode.postMessage(message);
  }

  private onMessage(message: HostMessage): void {
    if (!message || typeof message !== 'object') return;
    switch (message.type) {
      case 'loadRun':
        this.load(message.run, message.baseRun, message.compare);
        break;
      case 'appendRecords':
        if (this.run && message.runId === this.run.data.runId && Array.isArray(message.records)) {
          this.run.index.add(message.records);
          if (this.run.numBlocks <= 0) this.run.numBlocks = countBlocks(this.run.data.manifest, this.run.index.rows);
          if (this.status && this.status.status !== 'running') this.renderStatus();
          this.invalidate();
        }
        break;
      case 'updateSummary':
        if (this.run && message.runId === this.run.data.runId) {
          this.run.data.summary = message.summary;
          delete this.run.data.unfinished;
          this.run.data.searchSweep = message.searchSweep;
          this.invalidate();
        }
        break;
      case 'updateUnfinished':
        if (this.run && message.runId === this.run.data.runId && !this.run.data.summary) {
          this.run.data.unfinished = message.unfinished;
          this.run.data.searchSweep = message.searchSweep;
          this.invalidate();
        }
        break;
      case 'runStatus':
        if (!this.run || message.runId === this.run.data.runId) {
          const moved = message.status === 'running' && message.done !== this.status?.done;
          this.status = { status: message.status, done: message.done, total: message.total, message: message.message };
          this.renderStatus();
          // A question finished: the numbers follow now, so the header and the status line give one count.
          if (moved) this.numbersSoon();
          this.renderExport();
          if (message.status !== 'running') this.invalidate();
        }
        break;
      case 'resumeOffer':
        if (this.run && message.runId === this.run.data.runId) {
          this.resumeOffer = message.offer && typeof message.offer === 'object' ? message.offer : undefined;
          this.resume.answered();
          this.renderResume();
        }
        break;
      case 'selectQuestion':
        this.setTab('questions');
        this.selectQuestion(String(message.id));
        if (message.reveal === 'mechanism') this.detail.reveal('.mechanism');
        if (message.reveal === 'depth') this.detail.reveal('.depth');
        break;
    }
  }

  private load(data: RunData, baseData: RunData | undefined, compare: Comparison | undefined): void {
    if (this.run && this.run.data.runId !== data.runId) {
      // A different run: the previous run's status does not describe it.
      this.status = undefined;
      this.numbersOver = undefined;
      this.resumeOffer = undefined;
      this.renderStatus();
    }
    const records = Array.isArray(data.records) ? data.records : [];
    const index = new QuestionIndex(records);
    this.run = { data, index, numBlocks: countBlocks(data.manifest, index.rows) };
    if (baseData) {
      const baseIndex = new QuestionIndex(Array.isArray(baseData.records) ? baseData.records : []);
      this.base = { data: baseData, index: baseIndex, numBlocks: countBlocks(baseData.manifest, baseIndex.rows) };
    } else {
      this.base = undefined;
    }
    // A comparison only comes with its base run (the protocol says so); without one it means nothing.
    this.compare = this.base ? compare : undefined;
    this.fillFilterOptions();

    const manifest = data.manifest;
    this.title.textContent = data.label ?? manifest?.name ?? data.runId;
    const parts = [manifest?.model?.path, manifest?.dataset?.path].filter((p): p is string => typeof p === 'string' && p !== '');
    if (this.base) parts.push(`compared with ${this.base.data.label ?? this.base.data.runId}`);
    this.subtitle.textContent = parts.join(' · ');
    this.runCommand.show(data.reproduce);
    this.showImported(manifest);

    // A stored comparison filter comes back only if this comparison has that count.
    this.useSelection(this.state.compareFilter);
    this.comparison.show(this.compare, this.compareLabels(), this.selection?.key, this.gainSetRows(), this.sweeps());
    this.showComparisonTab(this.comparison.shown);

    // A stored scroll offset belongs to the run it was taken in (a live run is loaded again as it
    // fills); another run starts at its top, or it would open scrolled past its first rows.
    if (this.state.runId !== data.runId) {
      this.state.scrollTop = 0;
      this.state.runId = data.runId;
    }
    // The table first (what the user looks at), numbers and charts after it has painted.
    this.pendingRestore = { selectedId: this.state.selectedId, scrollTop: this.state.scrollTop };
    this.applyQuery(false);
    this.detail.showEmpty();
    this.restore();
    this.invalidate();
  }

  /**
   * Puts back the stored selection and scroll position. A large run arrives in batches, so what
   * was stored may not be there yet: it is tried again as batches land, until the user acts.
   */
  private restore(): void {
    const pending = this.pendingRestore;
    if (!pending) return;
    if (pending.selectedId !== undefined && this.table.select(pending.selectedId, false)) pending.selectedId = undefined;
    if (pending.scrollTop !== undefined && this.table.maxScrollTop() >= pending.scrollTop) {
      this.table.scrollTop = pending.scrollTop;
      pending.scrollTop = undefined;
    }
    if (pending.selectedId === undefined && pending.scrollTop === undefined) this.pendingRestore = undefined;
  }

  private fillFilterOptions(): void {
    this.filters = BASE_FILTERS.slice();
    for (const probe of this.run?.index.probes ?? []) this.filters.push(probeFilter(probe));
    for (const reading of this.run?.index.readings ?? []) this.filters.push(interfaceFailureFilter(reading));
    const selected = findFilter(this.filters, this.state.filter).value;
    replaceChildren(this.filterBox, ...this.filters.map((f) => h('vscode-option', { value: f.value, selected: f.value === selected }, f.label)));
    setValue(this.filterBox, selected);
  }

  /** Routes vs search on the gain set of each compared checkpoint, from their summaries. */
  private gainSetRows(): GainSetRow[] {
    if (!this.compare) return [];
    const labels = this.compareLabels();
    return gainSetRows([
      { checkpoint: labels.base, routesVsSearch: this.base?.data.summary?.routesVsSearch },
      { checkpoint: labels.tuned, routesVsSearch: this.run?.data.summary?.routesVsSearch },
    ]);
  }

  /** The search over its exploration sweep on each compared checkpoint that ran one (--search-sweep). */
  private sweeps(): { checkpoint: string; view: SweepView }[] {
    if (!this.compare) return [];
    const labels = this.compareLabels();
    return [
      { checkpoint: labels.base, view: sweepView(this.base?.data.searchSweep) },
      { checkpoint: labels.tuned, view: sweepView(this.run?.data.searchSweep) },
    ].filter((x): x is { checkpoint: string; view: SweepView } => x.view !== undefined);
  }

  private compareLabels(): { base: string; tuned: string } {
    return { base: this.base?.data.label ?? this.base?.data.runId ?? 'base', tuned: this.run?.data.label ?? this.run?.data.runId ?? 'tuned' };
  }

  /** Sets (or with undefined, clears) the comparison filter and its chip, without querying. */
  private useSelection(key: string | undefined): void {
    const selection = resolveSelection(this.compare, key);
    this.selection = selection ? { ...selection, idSet: new Set(selection.ids) } : undefined;
    if (this.selection) this.state.compareFilter = this.selection.key;
    else delete this.state.compareFilter;
    this.comparison.markSelected(this.selection?.key);
    if (!this.selection) {
      this.chip.hidden = true;
      replaceChildren(this.chip);
      return;
    }
    const clear = h('button', { type: 'button', class: 'filter-chip-clear', title: 'Clear this filter', 'aria-label': `Clear the filter ${this.selection.label}` }, '×');
    clear.addEventListener('click', () => {
      this.setSelection(undefined);
      // The chip and its button are gone: keep keyboard focus in the table rather than on <body>.
      this.table.focus();
    });
    replaceChildren(this.chip, h('span', { class: 'filter-chip-label' }, this.selection.label), clear);
    this.chip.hidden = false;
  }

  /** A comparison count was clicked (or its chip cleared): filter the table to those questions. */
  private setSelection(key: string | undefined): void {
    this.useSelection(key);
    this.applyQuery(true);
  }

  private query(): Query {
    return this.selection ? { ...this.state, ids: this.selection.idSet } : this.state;
  }

  /** Re-runs filter, search and sort; answers synchronously so typing feels immediate. */
  private applyQuery(resetScroll: boolean): void {
    if (!this.run) return;
    this.requery();
    this.table.setRows(this.shown, resetScroll);
    if (resetScroll) this.state.scrollTop = 0;
    this.renderCount();
    this.markDetailHidden();
    this.save(false);
  }

  /** The detail pane says when the filter or search hides the question it shows. */
  private markDetailHidden(): void {
    const shown = this.detail.shown;
    if (shown) this.detail.markHidden(!this.shown.some((r) => r.id === shown.id));
  }

  /** The rows of the current filter, search and sort, and the run's size they were taken at. */
  private requery(): void {
    if (!this.run) return;
    this.shown = this.run.index.query(this.query(), this.filters);
    this.shownOf = this.run.index.size;
  }

  private renderCount(): void {
    const total = this.run?.index.size ?? 0;
    const noun = total === 1 ? 'question' : 'questions';
    this.countText.textContent = this.shown.length === total ? `${count(total)} ${noun}` : `${count(this.shown.length)} of ${count(total)} ${noun}`;
    this.countBadge.textContent = count(total);
    this.renderExport();
  }

  /**
   * Export works on what is finished: disabled while there is nothing (an empty or just-started
   * run); while a run is going it exports the questions finished so far and says so.
   */
  private renderExport(): void {
    const shown = this.shown.length;
    // Records that arrived since (their rows come with the next frame) are not yet on the table:
    // until then Export says what the count says, never "no question matches the filter".
    const total = this.run ? this.shownOf : 0;
    const live = this.isLive();
    for (const [button, format] of this.exportButtons) {
      const disabled = shown === 0;
      if (disabled) button.setAttribute('disabled', '');
      else button.removeAttribute('disabled');
      const what = shown === total ? `the ${count(shown)} question${shown === 1 ? '' : 's'}` : `the ${count(shown)} question${shown === 1 ? '' : 's'} shown`;
      button.title = total === 0
        ? `Nothing to export yet: no question of this run has finished`
        : shown === 0
          ? 'Nothing to export: no question matches the filter'
          : live
            ? `Export ${what} finished so far (${format}); the run is still going`
            : `Export ${what} (${format})`;
    }
  }

  private sortBy(key: SortKey): void {
    const descending = this.state.sort.key === key ? !this.state.sort.descending : false;
    this.state.sort = { key, descending };
    this.table.setSort(key, descending);
    this.applyQuery(false);
  }

  private selectQuestion(id: string): void {
    if (!this.run) return;
    if (!this.shown.some((r) => r.id === id) && this.run.index.get(id)) {
      // The question is hidden by the filter or search: clear them rather than fail silently.
      this.state.filter = 'all';
      this.state.search = '';
      this.state.truncatedOnly = false;
      this.useSelection(undefined);
      setValue(this.search, '');
      setChecked(this.truncated, false);
      this.fillFilterOptions();
      this.applyQuery(false);
    }
    this.table.select(id, true);
    this.table.focus();
    this.questionsInView();
  }

  /** Scrolls the page (not the table) so the question table and the detail pane are in view whole. */
  private questionsInView(): void {
    requestAnimationFrame(() => this.split.scrollIntoView({ block: 'nearest' }));
  }

  private showDetail(row: QuestionRow): void {
    this.state.selectedId = row.id;
    this.save(false);
    const baseRow = this.base?.index.get(row.id);
    const mechanism = this.run?.data.mechanism?.accounts.find((a) => a.id === row.record.id);
    // The pool route learned-route took for this question (summary.json's, fit after every record is in).
    const learnedIndex = this.run?.data.summary?.learnedRoute?.choices?.[row.record.id];
    const learnedRoute = typeof learnedIndex === 'number' && this.run?.data.summary?.learnedRoute ? { index: learnedIndex, folds: this.run.data.summary.learnedRoute.folds } : undefined;
    this.detail.show(row, { numBlocks: this.run?.numBlocks ?? 0, baseRow, baseLabel: this.base?.data.label ?? this.base?.data.runId, ...(mechanism ? { mechanism } : {}), ...(learnedRoute ? { learnedRoute } : {}) });
  }

  private reveal(row: QuestionRow): void {
    if (!this.run) return;
    this.post({ type: 'revealQuestion', runId: this.run.data.runId, id: row.record.id, line: row.record.line });
  }

  private requestExport(format: 'csv' | 'json'): void {
    if (!this.run || this.shown.length === 0) return;
    const filtered = this.shown.length !== this.run.index.size;
    const ids: string[] | undefined = filtered ? this.shown.map((r) => r.record.id) : undefined;
    this.post({ type: 'requestExport', runId: this.run.data.runId, format, ...(ids ? { ids } : {}) });
  }

  /** Shows the Comparison tab with a comparison (hides it without one, leaving it for Questions). */
  private showComparisonTab(shown: boolean): void {
    if (this.comparisonTab.hidden === !shown) {
      if (!shown && this.state.tab === 'comparison') this.setTab('questions');
      return;
    }
    this.comparisonTab.hidden = !shown;
    // The toolkit marks the tabs when the active one changes: set it afresh now one came or went.
    setActiveTab(this.panels, '');
    this.setTab(shown || this.state.tab !== 'comparison' ? this.state.tab : 'questions');
  }

  private setTab(tab: PanelUiState['tab']): void {
    this.state.tab = tab;
    this.panels.setAttribute('activeid', `tab-${tab}`);
    setActiveTab(this.panels, `tab-${tab}`);
    this.save(false);
  }

  /** New records or a new status: refresh the table now (next frame), numbers and charts soon after. */
  private invalidate(): void {
    this.statsDirty = true;
    this.chartsDirty = true;
    if (!this.refreshFrame) {
      this.refreshFrame = requestAnimationFrame(() => {
        this.refreshFrame = 0;
        if (!this.run) return;
        this.requery();
        this.table.setRows(this.shown, false);
        this.restore();
        this.renderCount();
        if (this.filters.length !== BASE_FILTERS.length + this.run.index.probes.length + this.run.index.readings.length) this.fillFilterOptions();
        const selected = this.detail.shown;
        if (selected) {
          const current = this.run.index.get(selected.id);
          if (current && current !== selected) this.showDetail(current);
        }
        this.markDetailHidden();
      });
    }
    // Statistics walk every record: only after the table has painted, and at most a few times a
    // second while records stream in.
    if (this.statsTimer === undefined) {
      this.statsTimer = setTimeout(() => {
        requestAnimationFrame(() =>
          setTimeout(() => {
            this.statsTimer = undefined;
            this.updateNumbers();
          }, 0),
        );
      }, this.isLive() ? 500 : 50);
    }
  }

  /** The numbers in the next frame, instead of after the live run's half-second wait. */
  private numbersSoon(): void {
    if (this.statsTimer !== undefined) clearTimeout(this.statsTimer);
    this.statsTimer = setTimeout(() => {
      requestAnimationFrame(() => {
        this.statsTimer = undefined;
        this.updateNumbers();
      });
    }, 0);
  }

  private isLive(): boolean {
    return this.status?.status === 'running';
  }

  private statistics(run: LoadedRun): RunStatistics {
    if (!run.stats || this.statsDirty) run.stats = computeStatistics(run.index.rows, run.index.probes, run.numBlocks);
    return run.stats;
  }

  private updateNumbers(): void {
    if (!this.run) return;
    const stats = this.statistics(this.run);
    if (this.base && !this.base.stats) this.base.stats = computeStatistics(this.base.index.rows, this.base.index.probes, this.base.numBlocks);
    this.statsDirty = false;
    if (stats.n < RATE_MIN_QUESTIONS) {
      // Too few questions for rates to mean anything: lead with each question's own story.
      const run = this.run;
      renderStory(this.headline, {
        records: run.index.rows.map((r) => r.record),
        manifest: run.data.manifest,
        summary: run.data.summary,
        numBlocks: run.numBlocks,
        live: this.isLive(),
        select: (id) => {
          this.setTab('questions');
          this.selectQuestion(id);
        },
      });
      // One question: its detail is the story's long form, so show it rather than an empty pane.
      if (stats.n === 1 && !this.detail.shown && this.state.selectedId === undefined) this.table.select(run.index.rows[0].id, false);
    } else {
      renderHeadline(this.headline, stats, this.run.data.summary, this.compare, this.isLive());
    }
    // A comparison over the first few questions: said first, before any difference is read from it.
    const small = smallSampleNote(this.compare);
    if (small && this.headline.firstChild) this.headline.prepend(h('p', { class: 'small-sample', role: 'note' }, small));
    if (this.state.tab === 'charts') this.drawCharts();
    // While a run goes, the status line counts the questions these numbers are over: one count.
    if (this.isLive()) {
      this.numbersOver = this.run.index.rows.length;
      this.renderStatus();
    }
  }

  private drawCharts(): void {
    if (!this.run || !this.chartsDirty) return;
    const runs: ChartRun[] = [{ label: this.run.data.label ?? this.run.data.runId, stats: this.statistics(this.run), summary: this.run.data.summary, unfinished: this.run.data.summary ? undefined : this.run.data.unfinished, mechanism: this.run.data.mechanism, searchSweep: this.run.data.searchSweep, forkPositions: forkPositions(this.run.index.rows.map((row) => row.record)) }];
    if (this.base) runs.push({ label: this.base.data.label ?? this.base.data.runId, stats: this.base.stats ?? computeStatistics(this.base.index.rows, this.base.index.probes, this.base.numBlocks), summary: this.base.data.summary });
    this.statsDirty = false;
    this.chartsDirty = false;
    // The charts tab has just become visible: let it lay out so chart.js measures real sizes.
    requestAnimationFrame(() => this.charts.update(runs, this.isLive()));
  }

  private renderResume(): void {
    this.resume.show(this.resumeOffer, this.status?.status === 'running');
  }

  private renderStatus(): void {
    this.renderResume();
    const s = this.status;
    if (!s) {
      replaceChildren(this.statusBox);
      return;
    }
    const progress = `${count(s.status === 'running' && this.numbersOver !== undefined ? this.numbersOver : s.done)} / ${count(s.total)}`;
    // A finished run that skipped questions says how many were audited and why the rest were not:
    // a run whose every prompt overflows the context is not a result.
    const counted = s.status === 'done' && this.run ? auditedCount(this.run.index.rows.map((r) => r.record)) : undefined;
    const skipped = counted ? skippedText(counted) : undefined;
    const done = skipped ? `${counted?.audited === 0 ? 'Nothing audited' : 'Done'} · ${skipped}` : `Done · ${count(s.done)} questions`;
    const text =
      s.status === 'running' ? `Running · ${progress}` : s.status === 'done' ? done : s.status === 'cancelled' ? `Cancelled · ${progress} kept` : `Failed · ${progress} kept`;
    // A sentence (skipped questions, a failure's message) takes a line of its own under the run's name.
    this.statusBox.classList.toggle('run-status-wide', Boolean(skipped) || Boolean(s.message));
    replaceChildren(
      this.statusBox,
      s.status === 'running' ? h('vscode-progress-ring', { class: 'ring', 'aria-hidden': 'true' }) : null,
      h('span', { class: `status-text status-${s.status}${skipped ? ' status-skipped' : ''}` }, text),
      s.message ? h('span', { class: 'muted status-message' }, ` ${s.message}`) : null,
    );
  }

  private renderEmpty(): void {
    this.headline.textContent = '';
    this.renderCount();
    this.table.setRows([], false);
  }

  /** Stores the UI state with VS Code (and tells the extension). Scrolling saves at most every 300 ms. */
  private save(debounced: boolean): void {
    if (this.saveTimer !== undefined) clearTimeout(this.saveTimer);
    const write = (): void => {
      this.saveTimer = undefined;
      const state = { ...this.state, sort: { ...this.state.sort } };
      vscode.setState(state);
      this.post({ type: 'persistState', state });
    };
    if (debounced) this.saveTimer = setTimeout(write, 300);
    else write();
  }
}

new AuditPanel(document.getElementById('app') ?? document.body.appendChild(h('div', { id: 'app' })));
