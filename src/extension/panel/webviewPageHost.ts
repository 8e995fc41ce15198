/**
 * One webview page of the extension (a bundle from dist/webview) and its `ready` handshake, as the
 * audit panel and the Tables page both use it: the page is built under the strict CSP, says `ready`
 * when its script runs (again whenever it is rebuilt), and only then is sent what it should show.
 * `whenReady` lets commands and tests wait for that. What was sent is logged (bounded) for the
 * test suite. The owner decides what to send on `ready` and handles the page's other messages.
 */
import * as vscode from 'vscode';
import { newNonce, panelHtml } from './panelHtml';

export interface WebviewPageOptions<In> {
  viewType: string;
  extensionUri: vscode.Uri;
  /** The bundle under dist/webview: `<bundle>.js` and `<bundle>.css`. */
  bundle: string;
  /**
   * Keep the page while hidden behind another editor (it comes back as it was and receives what is
   * sent meanwhile); otherwise it is rebuilt when shown again and says `ready` again.
   */
  retainContextWhenHidden: boolean;
  /** Folders besides dist/webview the page may load from. */
  resourceRoots?: readonly string[];
  /** How many sent messages the log keeps. */
  logLimit: number;
  /** The page (new, or rebuilt) said `ready`: send it what it shows. */
  onReady(): void;
  /** Any other message from the page. */
  onMessage(message: In): Promise<void> | void;
}

export class WebviewPageHost<Out, In extends { type: string }> implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private isReady = false;
  private readyWaiters: (() => void)[] = [];
  /** Every message sent to the page, newest last (bounded); the test suite reads it. */
  readonly sent: Out[] = [];
  /** The page's HTML as last set. */
  html = '';

  constructor(private readonly options: WebviewPageOptions<In>) {}

  get visible(): boolean {
    return this.panel?.visible === true;
  }

  /** The page is open (visible, or a tab behind another). */
  get open(): boolean {
    return this.panel !== undefined;
  }

  /** The editor group the page is in (undefined when it is not open). */
  get viewColumn(): vscode.ViewColumn | undefined {
    return this.panel?.viewColumn;
  }

  /** The page has said `ready` and is still there: what is posted now reaches it. */
  get ready(): boolean {
    return this.isReady;
  }

  /** Resolves once the page has said `ready` (or after `timeoutMs`, for a page that is not loading: hidden, or closed). */
  whenReady(timeoutMs = 15_000): Promise<void> {
    if (this.isReady) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.readyWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Reveals the page, or builds it. */
  show(title: string, preserveFocus = false): void {
    if (this.panel) {
      this.panel.title = title;
      this.panel.reveal(undefined, preserveFocus);
      return;
    }
    const { extensionUri, bundle } = this.options;
    const dist = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
    const panel = vscode.window.createWebviewPanel(this.options.viewType, title, { viewColumn: vscode.ViewColumn.Active, preserveFocus }, {
      enableScripts: true,
      retainContextWhenHidden: this.options.retainContextWhenHidden,
      localResourceRoots: [dist, ...(this.options.resourceRoots ?? []).map((r) => vscode.Uri.joinPath(extensionUri, r))],
      enableFindWidget: true,
    });
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'reach-audit.svg');
    const webview = panel.webview;
    this.html = panelHtml({
      cspSource: webview.cspSource,
      nonce: newNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, `${bundle}.js`)).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, `${bundle}.css`)).toString(),
      title,
    });
    webview.html = this.html;
    webview.onDidReceiveMessage((m: In) => void this.receive(m));
    // A page not kept while hidden is rebuilt when shown and says `ready` again.
    if (!this.options.retainContextWhenHidden) {
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.isReady = false;
      });
    }
    panel.onDidDispose(() => {
      // A newer page may already have replaced this one.
      if (this.panel !== panel) return;
      this.panel = undefined;
      this.isReady = false;
    });
    this.panel = panel;
  }

  /** Sends a message to the page (nothing without a page), and logs it. */
  post(message: Out): void {
    if (!this.panel) return;
    this.sent.push(message);
    if (this.sent.length > this.options.logLimit) this.sent.splice(0, this.sent.length - this.options.logLimit);
    void this.panel.webview.postMessage(message);
  }

  private async receive(message: In): Promise<void> {
    if (!message || typeof message !== 'object') return;
    if (message.type === 'ready') {
      this.isReady = true;
      this.options.onReady();
      for (const w of this.readyWaiters.splice(0)) w();
      return;
    }
    await this.options.onMessage(message);
  }

  /** Closes the page; the next show builds it again. */
  close(): void {
    const panel = this.panel;
    // Forgotten at once: the dispose event may come later than the next show.
    this.panel = undefined;
    this.isReady = false;
    panel?.dispose();
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
