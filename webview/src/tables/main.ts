/**
 * The Tables page: a Tables tab with the paper's cross-run tables (Build Tables on runs selected in
 * the Runs view) and a Trajectory tab with a training run's checkpoints. It only shows what the
 * extension sends (the contract's tablesMessages.ts) as text and canvas drawings, and asks it to
 * open questions.
 */
import { provideVSCodeDesignSystem, vsCodePanels, vsCodePanelTab, vsCodePanelView } from '@vscode/webview-ui-toolkit';
import '../../styles/tables.css';
import { h, replaceChildren } from '../common/element';
import { activeTab, setActiveTab } from '../common/toolkit';
import type { TablesHostMessage, TablesTab, TablesWebviewMessage } from '../../../src/contract';
import { renderTables } from './tablesList';
import { TrajectoryView } from './trajectoryView';

provideVSCodeDesignSystem().register(vsCodePanels(), vsCodePanelTab(), vsCodePanelView());

interface VsCodeApi {
  postMessage(message: TablesWebviewMessage): void;
  getState(): unknown;
  setState(state: { tab: TablesTab }): void;
}
declare function acquireVsCodeApi(): VsCodeApi;
const vscode = acquireVsCodeApi();

function storedTab(): TablesTab {
  const s = vscode.getState() as { tab?: unknown } | undefined;
  return s?.tab === 'trajectory' ? 'trajectory' : 'tables';
}

class TablesPage {
  private tab: TablesTab = storedTab();
  private readonly tables = h('div', { class: 'rt-tables' }, h('p', { class: 'muted rt-empty' }, 'Select runs or comparisons in the Runs view, then Build Tables.'));
  private readonly trajectory = new TrajectoryView({ openQuestion: (checkpoint, id) => vscode.postMessage({ type: 'openQuestion', checkpoint, id }) });
  private readonly panels: HTMLElement;

  constructor(root: HTMLElement) {
    this.panels = h(
      'vscode-panels',
      { class: 'tabs', activeid: `tab-${this.tab}`, 'aria-label': 'Tables views' },
      h('vscode-panel-tab', { id: 'tab-tables' }, 'Tables'),
      h('vscode-panel-tab', { id: 'tab-trajectory' }, 'Trajectory'),
      h('vscode-panel-view', { id: 'view-tables', class: 'view' }, this.tables),
      h('vscode-panel-view', { id: 'view-trajectory', class: 'view' }, this.trajectory.element),
    );
    this.panels.addEventListener('change', () => {
      const id = activeTab(this.panels);
      const tab: TablesTab = id === 'tab-trajectory' ? 'trajectory' : 'tables';
      if (tab === this.tab) return;
      this.tab = tab;
      vscode.setState({ tab });
      if (tab === 'trajectory') requestAnimationFrame(() => this.trajectory.retheme());
    });
    replaceChildren(root, h('header', { class: 'rt-top' }, h('h1', {}, 'Reach Audit tables')), this.panels);
    window.addEventListener('message', (event: MessageEvent<TablesHostMessage>) => this.onMessage(event.data));
    new MutationObserver(() => this.trajectory.retheme()).observe(document.body, { attributes: true, attributeFilter: ['class'] });
    vscode.postMessage({ type: 'ready' });
  }

  private setTab(tab: TablesTab): void {
    this.tab = tab;
    vscode.setState({ tab });
    setActiveTab(this.panels, `tab-${tab}`);
    this.panels.setAttribute('activeid', `tab-${tab}`);
  }

  private onMessage(m: TablesHostMessage): void {
    if (!m || typeof m !== 'object') return;
    switch (m.type) {
      case 'showTables':
        renderTables(this.tables, Array.isArray(m.tables) ? m.tables : [], Array.isArray(m.sources) ? m.sources : [], Array.isArray(m.warnings) ? m.warnings : []);
        break;
      case 'showTrajectory':
        // The tab first: the charts measure the laid-out tab.
        this.setTab('trajectory');
        this.trajectory.show(m.trajectory, Array.isArray(m.tables) ? m.tables : [], String(m.source ?? ''), Array.isArray(m.warnings) ? m.warnings : []);
        break;
      case 'showTab':
        this.setTab(m.tab === 'trajectory' ? 'trajectory' : 'tables');
        break;
    }
  }
}

new TablesPage(document.getElementById('app') ?? document.body.appendChild(h('div', { id: 'app' })));
