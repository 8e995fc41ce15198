/**
 * The Tables panel host: one WebviewPanel (dist/webview/tables.js) with the cross-run tables and
 * the training trajectory. It keeps the last of each and sends them when the page says `ready`
 * (a new page), and opens a trajectory's question in the audit panel when asked.
 */
import type * as vscode from 'vscode';
import type { TablesHostMessage, TablesWebviewMessage } from '../../contract';
import { WebviewPageHost } from '../panel/webviewPageHost';
import type { TablesMessage, TrajectoryMessage } from './tablesData';

export const TABLES_VIEW_TYPE = 'reachAudit.tables';
const TITLE = 'Reach Audit: Tables';

export class TablesPanelHost implements vscode.Disposable {
  private readonly page: WebviewPageHost<TablesHostMessage, TablesWebviewMessage>;
  private tables: TablesMessage | undefined;
  private trajectory: TrajectoryMessage | undefined;
  private tab: 'tables' | 'trajectory' = 'tables';

  constructor(
    extensionUri: vscode.Uri,
    /** Opens question `id` of the run in `runDir` in the audit panel. */
    private readonly openQuestion: (runDir: string, id: string) => Promise<void>,
  ) {
    this.page = new WebviewPageHost({
      viewType: TABLES_VIEW_TYPE,
      extensionUri,
      bundle: 'tables',
      // A small page: kept while hidden behind another editor, so it comes back as it was and
      // what is shown meanwhile reaches it (a rebuilt page would ask again with `ready`).
      retainContextWhenHidden: true,
      logLimit: 50,
      onReady: () => this.sendAll(),
      onMessage: (m) => this.onMessage(m),
    });
  }

  /** Every message sent to the page, newest last (bounded); the test suite reads it. */
  get sent(): readonly TablesHostMessage[] {
    return this.page.sent;
  }

  /** The trajectory last given to the page (sent once the page is ready); the test suite reads it. */
  get shownTrajectory(): TrajectoryMessage | undefined {
    return this.trajectory;
  }

  /** The page's HTML as last set. */
  get html(): string {
    return this.page.html;
  }

  get visible(): boolean {
    return this.page.visible;
  }

  /** Resolves once the page has said `ready` (or after `timeoutMs`). */
  whenReady(timeoutMs = 15_000): Promise<void> {
    return this.page.whenReady(timeoutMs);
  }

  showTables(message: TablesMessage): void {
    this.tables = message;
    this.tab = 'tables';
    this.page.show(TITLE);
    if (this.page.ready) this.sendAll();
  }

  /**
   * Shows a trajectory on the Trajectory tab. `update`: a new state of the one shown (a watched
   * training run's next checkpoint): an open page is updated where it is, without taking focus.
   */
  showTrajectory(message: TrajectoryMessage, how: { update?: boolean } = {}): void {
    this.trajectory = message;
    this.tab = 'trajectory';
    if (!how.update || this.page.viewColumn === undefined) this.page.show(TITLE, how.update === true);
    if (this.page.ready) this.sendAll();
  }

  private sendAll(): void {
    if (this.tables) this.page.post(this.tables);
    if (this.trajectory) this.page.post(this.trajectory);
    this.page.post({ type: 'showTab', tab: this.tab });
  }

  private async onMessage(message: TablesWebviewMessage): Promise<void> {
    switch (message.type) {
      case 'openQuestion': {
        const point = Number.isInteger(message.checkpoint) ? this.trajectory?.trajectory.points[message.checkpoint] : undefined;
        if (point && typeof message.id === 'string') await this.openQuestion(point.folder, message.id);
        return;
      }
    }
  }

  /** Closes the page; the next show opens it again with what it showed. */
  close(): void {
    this.page.close();
  }

  dispose(): void {
    this.page.dispose();
  }
}
