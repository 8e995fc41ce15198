/**
 * The audited questions of each dataset file, by line, that the editor shows (gutter marks, the
 * hover, the cursor line's state): the newest run whose manifest names the file, read from disk,
 * and live records from a running audit, so the lines fill as questions finish.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { QuestionRecord } from '../../contract';
import { loadRunFolder } from '../panel/runData';

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

  /** `runsForDataset(file)`: run folders on that dataset, newest first. */
  constructor(private readonly runsForDataset: (file: string) => Promise<string[]>) {}

  /** Forget what was read from disk (runs changed); the next paint re-reads. */
  invalidate(): void {
    this.files.clear();
    this.changed.fire();
  }

  /** A live record: shown at once (coalesced) on its dataset's line. */
  addRecord(datasetFile: string, runDir: string, record: QuestionRecord): void {
    const k = key(datasetFile);
    let entry = this.files.get(k);
    if (!entry || entry.runDir !== runDir) {
      entry = { runDir, byLine: new Map(entry?.byLine ?? []) };
      this.files.set(k, entry);
    }
    entry.byLine.set(record.line, record);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.changed.fire();
    }, 200);
  }

  /** The record shown on a line of a dataset file, when one is. */
  recordAt(file: string, line: number): QuestionRecord | undefined {
    return this.files.get(key(file))?.byLine.get(line);
  }

  /** The audited questions of a dataset file by line: live ones, else the newest run on disk that has any. */
  async recordsFor(file: string): Promise<FileRecords | undefined> {
    const k = key(file);
    let entry = this.files.get(k);
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
    if (this.timer) clearTimeout(this.timer);
    this.changed.dispose();
  }
}
