/**
 * The Tables panel host: one WebviewPanel (dist/webview/tables.js) with the cross-run tables and
 * the training trajectory. It keeps the last of each and sends them when the page says `ready`
 * (a new page), and opens a trajectory's question in the audit panel when asked.
 */
import * as vscode from 'vscode';
import type { TablesHostMessage, TablesWebviewMessage } from '../../../webview/src/tables/protocol';
import { newNonce, panelHtml } from '../panel/panelHtml';
import type { TablesMessage, TrajectoryMessage } from './tablesData';

export const TABLES_VIEW_TYPE = 'reachAudit.tables';

export class TablesPanelHost implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private ready = false;
  private readyWaiters: (() => void)[] = [];
  private tables: TablesMessage | undefined;
  private trajectory: TrajectoryMessage | undefined;
  private tab: 'tables' | 'trajectory' = 'tables';
  /** Every message sent to the page, newest last (bounded); the test suite reads it. */
  readonly sent: TablesHostMessage[] = [];
  /** The page's HTML as last set. */
  html = '';

  constructor(
    private readonly extensionUri: vscode.Uri,
    /** Opens question `id` of the run in `runDir` in the audit panel. */
    private readonly openQuestion: (runDir: string, id: string) => Promise<void>,
  ) {}

  get visible(): boolean {
    return this.panel?.visible === true;
  }

  /** Resolves once the page has said `ready` (or after `timeoutMs`). */
  whenReady(timeoutMs = 15_000): Promise<void> {
    if (this.ready) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.readyWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  showTables(message: TablesMessage): void {
    this.tables = message;
    this.tab = 'tables';
    this.open();
    if (this.ready) this.sendAll();
  }

  showTrajectory(message: TrajectoryMessage): void {
    this.trajectory = message;
    this.tab = 'trajectory';
    this.open();
    if (this.ready) this.sendAll();
  }

  private open(): void {
    if (this.panel) {
      this.panel.reveal(undefined, false);
      return;
    }
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview');
    const panel = vscode.window.createWebviewPanel(TABLES_VIEW_TYPE, 'Reach Audit: Tables', vscode.ViewColumn.Active, {
      enableScripts: true,
      // A small page: kept while hidden behind another editor, so it comes back as it was and
      // what is shown meanwhile reaches it (a rebuilt page would ask again with `ready`).
      retainContextWhenHidden: true,
      localResourceRoots: [dist],
      enableFindWidget: true,
    });
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'reach-audit.svg');
    const webview = panel.webview;
    this.html = panelHtml({
      cspSource: webview.cspSource,
      nonce: newNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'tables.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'tables.css')).toString(),
      title: 'Reach Audit: Tables',
    });
    webview.html = this.html;
    webview.onDidReceiveMessage((m: TablesWebviewMessage) => void this.onMessage(m));
    panel.onDidDispose(() => {
      // A newer page may already have replaced this one.
      if (this.panel !== panel) return;
      this.panel = undefined;
      this.ready = false;
    });
    this.panel = panel;
  }

  private post(message: TablesHostMessage): void {
    if (!this.panel) return;
    this.sent.push(message);
    if (this.sent.length > 50) this.sent.splice(0, this.sent.length - 50);
    void this.panel.webview.postMessage(message);
  }

  private sendAll(): void {
    if (this.tables) this.post(this.tables);
    if (this.trajectory) this.post(this.trajectory);
    this.post({ type: 'showTab', tab: this.tab });
  }

  private async onMessage(message: TablesWebviewMessage): Promise<void> {
    if (!message || typeof message !== 'object') return;
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.sendAll();
        for (const w of this.readyWaiters.splice(0)) w();
        return;
      case 'openQuestion': {
        const point = Number.isInteger(message.checkpoint) ? this.trajectory?.trajectory.points[message.checkpoint] : undefined;
        if (point && typeof message.id === 'string') await this.openQuestion(point.folder, message.id);
        return;
      }
    }
  }

  /** Closes the page; the next show opens it again with what it showed. */
  close(): void {
    const panel = this.panel;
    // Forgotten at once: the dispose event may come later than the next show.
    this.panel = undefined;
    this.ready = false;
    panel?.dispose();
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
