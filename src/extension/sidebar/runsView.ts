/**
 * The Runs tree: one row per run in the workspace with its headline numbers, and under it the
 * numbers in full (rate, 95% interval, n; counts for a run of fewer than RATE_MIN_QUESTIONS). It keeps a snapshot of the runs on disk; `refresh()`
 * re-reads them (the refresh command, workspace changes and a watcher on run files call it).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { listOpenedFolder } from './openedRuns';
import { countedText, formatCountOrRate, formatHeadlineLine, isCountedRun, type RunHeadline } from './runHeadline';
import { listRuns, readRun, RUNS_FOLDER, type RunEntry } from './runListing';
import { runDistinctions } from './runDistinctions';
import { runContextValue } from './runContextValue';
import { loadRunFolder } from '../panel/runData';
import { groupQuestions, STATE_TITLES, type QuestionRef } from '../editor/runQuestionGroups';
import { liveCountText, type LiveCount } from './liveCountText';

export type RunsNode =
  | { kind: 'run'; run: RunEntry }
  | { kind: 'metric'; label: string; detail: string; tooltip?: string }
  | { kind: 'problem'; message: string }
  | { kind: 'group'; run: RunEntry; title: string; questions: QuestionRef[]; tooltip: string }
  | { kind: 'question'; run: RunEntry; question: QuestionRef };

/** The failure set and the questions by state, read from the run's records. */
function questionGroupNodes(run: RunEntry): RunsNode[] {
  let groups;
  try {
    groups = groupQuestions(loadRunFolder(run.folder).data.records);
  } catch (err) {
    return [{ kind: 'problem', message: (err as Error).message }];
  }
  const nodes: RunsNode[] = [];
  if (groups.failureSet) {
    nodes.push({ kind: 'group', run, title: 'Failure set', questions: groups.failureSet, tooltip: 'Reachable under the reference probes but not realized: the questions the repair scan works on.' });
  }
  for (const [state, questions] of Object.entries(groups.byState) as [keyof typeof STATE_TITLES, QuestionRef[]][]) {
    if (questions.length === 0) continue;
    // Questions no probe ran on (an imported log) are not probed, not unreached.
    const title = state === 'unreached' && questions.every((q) => q.label === 'not probed') ? 'Not probed' : STATE_TITLES[state];
    nodes.push({ kind: 'group', run, title: `Questions · ${title}`, questions, tooltip: `${title}: click a question to reveal its line in the dataset.` });
  }
  return nodes;
}

/** "64 questions recorded, no summary.json yet; the numbers are over those finished". */
export function unfinishedText(run: Pick<RunEntry, 'recordedQuestions' | 'headline'>): string {
  const recorded = `${run.recordedQuestions} question${run.recordedQuestions === 1 ? '' : 's'} recorded, no summary.json yet`;
  return run.headline ? `${recorded}; the numbers are over the ${run.headline.n} finished` : recorded;
}

/**
 * The run's numbers, each with its n: a rate with its 95% interval from RATE_MIN_QUESTIONS questions
 * on, a count ("3 of 8") below, as the panel and the Audit view read a run of a few questions.
 */
function metricNodes(headline: RunHeadline): RunsNode[] {
  const nodes: RunsNode[] = [];
  if (isCountedRun(headline)) {
    nodes.push({
      kind: 'metric',
      label: 'Counted',
      detail: countedText(headline.n),
      tooltip: 'Over so few questions a 95% interval spans most of 0–100%, so the numbers below are counts; open the run for each question\'s story.',
    });
  }
  nodes.push({
    kind: 'metric',
    label: 'Realized',
    detail: formatCountOrRate(headline.realized),
    tooltip: 'The deployed model (its default prompt, decoding and budget) answers correctly.',
  });
  for (const { probe, rate } of headline.reachable) {
    nodes.push({
      kind: 'metric',
      label: `Reachable · ${probe}`,
      detail: formatCountOrRate(rate),
      tooltip: `At least one of the ${probe} probe's attempts answers correctly.`,
    });
  }
  if (headline.reachable.length > 1) {
    nodes.push({
      kind: 'metric',
      label: 'Reachable · any probe',
      detail: formatCountOrRate(headline.reachableAny),
      tooltip: 'The reachable ceiling: at least one probe finds the correct answer.',
    });
  }
  for (const blind of headline.blind) {
    nodes.push({
      kind: 'metric',
      label: `Answer-blind · ${blind.probe} · ${blind.selector}`,
      detail: formatCountOrRate(blind),
      tooltip: `The ${blind.selector} selector, which never sees the gold answer, picks a correct ${blind.probe} attempt.`,
    });
  }
  const repair = headline.repair;
  if (repair) {
    const parts = [`failure set ${repair.failureSetSize}`];
    if (repair.identifiedBlock !== undefined) {
      parts.unshift(`block ${repair.identifiedBlock}`);
      parts.push(repair.repairRate ? `repairs ${formatCountOrRate(repair.repairRate)} held out` : 'no held-out question to score it on');
      if (repair.damageRate) parts.push(`damage ${formatCountOrRate(repair.damageRate)}`);
    } else parts.push(repair.failureSetSize === 0 ? 'nothing to repair' : 'no block identified');
    nodes.push({
      kind: 'metric',
      label: 'Repair',
      detail: parts.join(' · '),
      tooltip: 'Silencing the identified MLP block: share of held-out failure-set questions it repairs, and of realized questions it breaks.',
    });
  }
  return nodes;
}

function runTooltip(run: RunEntry): vscode.MarkdownString {
  const tip = new vscode.MarkdownString();
  tip.appendMarkdown('**');
  tip.appendText(run.name);
  tip.appendMarkdown('**\n\n');
  const facts: [string, string | undefined][] = [
    ['Started', run.startedAt],
    ['Model', run.model],
    ['Dataset', run.dataset],
    ['Folder', run.folder],
  ];
  for (const [label, value] of facts) {
    if (value === undefined) continue;
    // appendText escapes: run files are untrusted text.
    tip.appendMarkdown(`${label}: `);
    tip.appendText(value);
    tip.appendMarkdown('  \n');
  }
  if (run.command) {
    tip.appendMarkdown('\nRun again with (**Copy Command Line** copies it):\n');
    // A code block shows the text as it is: paths and a system message are the run's, not Markdown.
    tip.appendCodeblock(run.command, 'sh');
  }
  return tip;
}

export class RunsTreeProvider implements vscode.TreeDataProvider<RunsNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RunsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private snapshot: RunEntry[] | undefined;
  private loading: Promise<RunEntry[]> | undefined;

  constructor(
    private readonly workspaceFolders: () => readonly vscode.Uri[],
    /** Folders opened with Open Run Folder… (outside the workspace's own runs). */
    private readonly openedFolders: () => readonly string[] = () => [],
    /** The count of a run going now (the one the notification and the status bar show). */
    private readonly liveCount: (folder: string) => LiveCount | undefined = () => undefined,
  ) {}

  /** A live run's count moved: its row says so at once (no files are read). */
  liveChanged(): void {
    this.changed.fire(undefined);
  }

  /** Re-reads every run from disk, then tells the view. Resolves with the runs now shown. */
  async refresh(): Promise<readonly RunEntry[]> {
    const runs = await this.load();
    this.changed.fire(undefined);
    return runs;
  }

  /**
   * Re-reads one run (a live run's records grow; the file watcher sees only its manifest and
   * summary) and tells the view; reads them all when that run is not listed yet.
   */
  async refreshRun(folder: string): Promise<readonly RunEntry[]> {
    const snapshot = this.snapshot;
    const at = snapshot?.findIndex((r) => r.folder === folder) ?? -1;
    if (!snapshot || at < 0) return this.refresh();
    const entry = await readRun(folder);
    // A full reload that finished meanwhile has this run as read then; the newer read wins.
    const current = this.snapshot ?? snapshot;
    const index = current.findIndex((r) => r.folder === folder);
    if (index >= 0) current[index] = current[index].outside ? { ...entry, outside: true } : entry;
    this.changed.fire(undefined);
    return current;
  }

  /** The runs as last read (reads them the first time). */
  async runs(): Promise<readonly RunEntry[]> {
    return this.snapshot ?? this.load();
  }

  private distinctionsOf: { runs: RunEntry[]; apart: Map<string, string> } | undefined;

  /** What sets apart runs of the same name, for the runs listed now. */
  private distinctions(): Map<string, string> {
    const runs = this.snapshot ?? [];
    if (this.distinctionsOf?.runs !== runs) this.distinctionsOf = { runs, apart: runDistinctions(runs) };
    return this.distinctionsOf.apart;
  }

  private load(): Promise<RunEntry[]> {
    const loading = (async () => {
      const perFolder = await Promise.all(
        this.workspaceFolders()
          .filter((uri) => uri.scheme === 'file')
          .map((uri) => listRuns(uri.fsPath)),
      );
      const inWorkspace = perFolder.flat();
      const seen = new Set(inWorkspace.map((r) => r.folder));
      const opened = (await Promise.all(this.openedFolders().map((f) => listOpenedFolder(f)))).flat();
      // A folder opened twice, or inside the workspace's runs, is listed once.
      const outside = opened.filter((r) => !seen.has(r.folder) && (seen.add(r.folder), true)).map((r): RunEntry => ({ ...r, outside: true }));
      return [...inWorkspace, ...outside];
    })();
    this.loading = loading;
    return loading.then((runs) => {
      // A slower, older load must not overwrite a newer one.
      if (this.loading === loading) this.snapshot = runs;
      return runs;
    });
  }

  async getChildren(node?: RunsNode): Promise<RunsNode[]> {
    if (!node) return (await this.runs()).map((run) => ({ kind: 'run', run }));
    if (node.kind === 'group') return node.questions.map((question) => ({ kind: 'question', run: node.run, question }));
    if (node.kind !== 'run') return [];
    const { run } = node;
    const children: RunsNode[] = run.problems.map((message) => ({ kind: 'problem', message }));
    if (!run.finished) {
      children.push({
        kind: 'metric',
        label: 'Unfinished',
        detail: unfinishedText(run),
        tooltip: 'The run is still being written, or it stopped; Resume (the button on its row) continues it. Its numbers are over the questions finished so far, as the panel shows them.',
      });
    }
    if (run.headline) children.push(...metricNodes(run.headline));
    if (run.recordedQuestions > 0) children.push(...questionGroupNodes(run));
    return children;
  }

  getTreeItem(node: RunsNode): vscode.TreeItem {
    switch (node.kind) {
      case 'run': {
        const item = new vscode.TreeItem(node.run.name, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = node.run.folder;
        const live = this.liveCount(node.run.folder);
        item.description = live
          ? liveCountText(live)
          : node.run.headline
            ? `${node.run.finished ? '' : 'unfinished · '}${formatHeadlineLine(node.run.headline)}`
            : `unfinished · ${node.run.recordedQuestions} recorded`;
        // Runs of the same name: what sets this one apart (not on a live row, whose count is all it says).
        const apart = live ? undefined : this.distinctions().get(node.run.folder);
        // First: a narrow side bar cuts the end of a description, and the headline is what runs of one name share.
        if (apart) item.description = `${apart} · ${item.description as string}`;
        if (node.run.outside) item.description = `${item.description as string} · ${path.dirname(node.run.folder)}`;
        item.tooltip = runTooltip(node.run);
        // Unfinished: still running, or stopped and resumable with --resume; the files cannot tell which.
        item.iconPath = new vscode.ThemeIcon(node.run.problems.length ? 'warning' : node.run.headline ? 'beaker' : 'history');
        item.contextValue = runContextValue(node.run, live !== undefined);
        return item;
      }
      case 'metric': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        item.description = node.detail;
        item.tooltip = node.tooltip ? `${node.tooltip}\n${node.detail}` : node.detail;
        return item;
      }
      case 'group': {
        const item = new vscode.TreeItem(node.title, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `${node.run.folder}#${node.title}`;
        item.description = `${node.questions.length} question${node.questions.length === 1 ? '' : 's'}`;
        item.tooltip = node.tooltip;
        item.iconPath = new vscode.ThemeIcon(node.title === 'Failure set' ? 'tools' : 'list-flat');
        return item;
      }
      case 'question': {
        const q = node.question;
        const item = new vscode.TreeItem(q.id, vscode.TreeItemCollapsibleState.None);
        item.description = `line ${q.line} · ${q.label}`;
        item.tooltip = `Question ${q.id} (line ${q.line}): ${q.label}. Click to reveal it in the dataset and the audit panel.`;
        item.command = { command: 'reachAudit.showQuestion', title: 'Show Question', arguments: [{ runDir: node.run.folder, id: q.id, line: q.line }] };
        return item;
      }
      case 'problem': {
        const item = new vscode.TreeItem(node.message, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('warning');
        return item;
      }
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The glob, relative to a workspace folder, of the run files whose change means a run appeared or finished. */
export const RUN_FILES_GLOB = `${RUNS_FOLDER.split('\\').join('/')}/*/{manifest,summary}.json`;
