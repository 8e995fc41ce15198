/**
 * The audited questions of each dataset file, by line, that the editor shows (gutter marks, the
 * hover, the cursor line's state): the run in view when it is a run of that file (runInView.ts),
 * else the newest run whose manifest names the file, read from disk; and live records of the run in
 * view, so its lines fill as questions finish. A run not in view never changes the marks.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { QuestionRecord } from '../../contract';
import { loadRunFolder } from '../panel/runData';
import type { RunInView } from '../runInView';

export interface FileRecords {
  runDir: string;
  byLine: Map<number, QuestionRecord>;
}

function key(file: string): string {
  return path.resolve(file);
}

export class QuestionRecords implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Records came or went (a live record, runs changed on disk). */
  readonly onDidChange = this.changed.event;
  private readonly files = new Map<string, FileRecords>();
  private timer: NodeJS.Timeout | undefined;
  private readonly following: vscode.Disposable;

  /** `runsForDataset(file)`: run folders on that dataset, newest first. */
  constructor(
    private readonly runsForDataset: (file: string) => Promise<string[]>,
    private readonly inView: RunInView,
  ) {
    this.following = inView.onDidChange(() => this.invalidate());
  }

  /** Forget what was read from disk (runs changed); the next paint re-reads. */
  invalidate(): void {
    this.files.clear();
    this.changed.fire();
  }

  /**
   * A live record: shown at once (coalesced) on its dataset's line when its run is the one shown
   * there. A file not read yet reads the run from disk on its next paint; a record of another run
   * (a one-question run started beside the run in view) leaves the lines as they are.
   */
  addRecord(datasetFile: string, runDir: string, record: QuestionRecord): void {
    const entry = this.files.get(key(datasetFile));
    if (entry && path.resolve(entry.runDir) !== path.resolve(runDir)) return;
    entry?.byLine.set(record.line, record);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.changed.fire();
    }, 200);
  }

  /** The record shown on a line of a dataset file, when one is. */
  recordAt(file: string, line: number): QuestionRecord | undefined {
    return this.files.get(key(file))?.byLine.get(line);
  }

  /** The audited questions of a dataset file by line: the run in view's when it is a run of the file, else the newest run on disk that has any. */
  async recordsFor(file: string): Promise<FileRecords | undefined> {
    const k = key(file);
    let entry = this.files.get(k);
    const viewed = this.inView.folder;
    if (!entry && viewed) {
      try {
        const run = loadRunFolder(viewed);
        // The run in view is the file's run even before its first question finishes: no marks, not another run's.
        if (run.datasetPath && key(run.datasetPath) === k) entry = { runDir: viewed, byLine: new Map(run.data.records.map((r) => [r.line, r])) };
      } catch {
        // Unreadable (being written, or deleted): the newest run of the file below.
      }
      if (entry) this.files.set(k, entry);
    }
    // The run in view was deleted: no marks until another run comes in view, as the panel and the Audit view show none.
    if (!entry && !viewed && this.inView.gone) return undefined;
    if (!entry) {
      const runs = await this.runsForDataset(file);
      for (const runDir of runs) {
        try {
          const run = loadRunFolder(runDir);
          if (run.data.records.length === 0) continue;
          entry = { runDir, byLine: new Map(run.data.records.map((r) => [r.line, r])) };
          break;
        } catch {
          // A damaged run: try the next older one.
        }
      }
      if (!entry) return undefined;
      this.files.set(k, entry);
    }
    return entry;
  }

  dispose(): void {
    this.following.dispose();
    if (this.timer) clearTimeout(this.timer);
    this.changed.dispose();
  }
}
