/**
 * How far each run going now is, by folder: one count of finished questions (the engine's progress
 * events) that the Runs view's row, the Audit view, the status bar and the progress notification
 * all show, so that no two of them disagree while a run goes. Updated in the same turn as the
 * notification; a run leaves it when its request ends.
 */
import * as vscode from 'vscode';
import type { LiveCount } from './liveCountText';

export class LiveCounts implements vscode.Disposable {
  private readonly counts = new Map<string, LiveCount>();
  private readonly changed = new vscode.EventEmitter<string>();
  /** A run's count changed, or it ended (its folder). */
  readonly onDidChange = this.changed.event;

  get(folder: string): LiveCount | undefined {
    return this.counts.get(folder);
  }

  set(folder: string, done: number, total: number): void {
    const now = this.counts.get(folder);
    if (now && now.done === done && now.total === total) return;
    this.counts.set(folder, { done, total });
    this.changed.fire(folder);
  }

  end(folder: string): void {
    if (this.counts.delete(folder)) this.changed.fire(folder);
  }

  dispose(): void {
    this.changed.dispose();
  }
}
