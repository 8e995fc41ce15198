/**
 * The Audit view in the Reach Audit side bar: the selected (or newest) run's headline numbers and
 * its question states as a small bar chart. A script-free page (auditViewHtml.ts).
 */
import * as vscode from 'vscode';
import { auditViewHtml, type AuditViewContent } from './auditViewHtml';
import { newNonce } from '../panel/panelHtml';
import type { RunEntry } from './runListing';
import { RATE_MIN_QUESTIONS } from '../../contract';
import { loadRunFolder } from '../panel/runData';
import { sidebarStory, type SidebarStory } from './storyHtml';
import type { LiveCount } from './liveCountText';

export const AUDIT_VIEW_ID = 'reachAudit.audit';

/** A run of fewer than RATE_MIN_QUESTIONS questions, read question by question; undefined for larger runs or unreadable files. */
function storyOf(run: RunEntry): SidebarStory | undefined {
  if (run.recordedQuestions >= RATE_MIN_QUESTIONS) return undefined;
  try {
    const { data } = loadRunFolder(run.folder);
    if (data.records.length === 0 || data.records.length >= RATE_MIN_QUESTIONS) return undefined;
    return sidebarStory(data.records, data.manifest, data.summary);
  } catch {
    // The Runs view names what is wrong with the files; here the run is shown without its story.
    return undefined;
  }
}

export class AuditViewProvider implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined;
  private run: RunEntry | undefined;
  /** The name of the run that was in view when its folder was deleted. */
  private gone: string | undefined;
  /** The page as last set (the test suite reads it). */
  html = '';

  /** `liveCount`: the count of a run going now, the one the notification and the status bar show. */
  constructor(private readonly liveCount: (folder: string) => LiveCount | undefined = () => undefined) {}

  /** A live run's count moved: the page says so at once when it shows that run. */
  liveChanged(folder: string): void {
    if (this.run?.folder === folder) this.render();
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = { enableScripts: false, localResourceRoots: [] };
    view.onDidDispose(() => (this.view = undefined));
    this.render();
  }

  show(run: RunEntry | undefined): void {
    this.run = run;
    this.gone = undefined;
    this.render();
  }

  /** The run in view was deleted: the view says so rather than showing another run. */
  showGone(name: string): void {
    this.run = undefined;
    this.gone = name;
    this.render();
  }

  private render(): void {
    const run = this.run;
    const content: AuditViewContent | undefined = run
      ? { name: run.name, folder: run.folder, headline: run.headline, states: run.headline?.states, recorded: run.recordedQuestions, finished: run.finished, story: storyOf(run), live: this.liveCount(run.folder) }
      : undefined;
    this.html = auditViewHtml(content, newNonce(), this.gone);
    if (this.view) this.view.webview.html = this.html;
  }
}
