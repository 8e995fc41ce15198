/**
 * The Audit view in the Reach Audit side bar: the selected (or newest) run's headline numbers and
 * its question states as a small bar chart. A script-free page (auditViewHtml.ts).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readJsonFile } from '../../audit/run/runStore';
import { auditViewHtml, type AuditViewContent, type StateCounts } from './auditViewHtml';
import { newNonce } from '../panel/panelHtml';
import type { RunEntry } from './runListing';
import { RATE_MIN_QUESTIONS } from '../../contract/questionStory';
import { loadRunFolder } from '../panel/runData';
import { sidebarStory, type SidebarStory } from './storyHtml';

export const AUDIT_VIEW_ID = 'reachAudit.audit';

function statesOf(folder: string): StateCounts | undefined {
  try {
    const summary = readJsonFile<{ states?: Partial<StateCounts> }>(path.join(folder, 'summary.json'));
    const s = summary?.states;
    if (s && [s.realized, s.reachableNotRealized, s.unreached].every((v) => typeof v === 'number')) return s as StateCounts;
  } catch {
    // Shown without the chart.
  }
  return undefined;
}

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
  /** The page as last set (the test suite reads it). */
  html = '';

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = { enableScripts: false, localResourceRoots: [] };
    view.onDidDispose(() => (this.view = undefined));
    this.render();
  }

  show(run: RunEntry | undefined): void {
    this.run = run;
    this.render();
  }

  private render(): void {
    const run = this.run;
    const content: AuditViewContent | undefined = run
      ? { name: run.name, folder: run.folder, headline: run.headline, states: statesOf(run.folder), recorded: run.recordedQuestions, story: storyOf(run) }
      : undefined;
    this.html = auditViewHtml(content, newNonce());
    if (this.view) this.view.webview.html = this.html;
  }
}
