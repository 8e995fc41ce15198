/**
 * The run in view: the one run (or checkpoint comparison: its trained run with its base) that every
 * surface shows at once — the audit panel, the Audit view in the side bar, the dataset's gutter
 * marks, the hover, the cursor line's state and the per-line commands. Whatever shows a run (the
 * panel, a click in the Runs view, Open Run Folder…, a command's end) sets it here; each surface
 * follows the change event instead of choosing a run of its own, so no two can disagree.
 * A run folder deleted while in view leaves it (`gone` names it until another run comes in view).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

export interface RunInViewState {
  /** The run folder (a comparison's trained run), absolute. */
  folder: string;
  /** A comparison's base run folder. */
  baseFolder?: string;
}

export class RunInView implements vscode.Disposable {
  private state: RunInViewState | undefined;
  private goneFolder: string | undefined;
  private readonly changed = new vscode.EventEmitter<RunInViewState | undefined>();
  /** The run in view changed (undefined: none is). */
  readonly onDidChange = this.changed.event;

  get folder(): string | undefined {
    return this.state?.folder;
  }

  get baseFolder(): string | undefined {
    return this.state?.baseFolder;
  }

  /** The folder of the run that was in view when it was deleted, until another run comes in view. */
  get gone(): string | undefined {
    return this.goneFolder;
  }

  /** Puts a run (with `baseFolder`: a comparison) in view; a change fires once, the same run again does not. */
  set(folder: string, baseFolder?: string): void {
    const next: RunInViewState = { folder: path.resolve(folder), ...(baseFolder ? { baseFolder: path.resolve(baseFolder) } : {}) };
    if (this.state && this.state.folder === next.folder && this.state.baseFolder === next.baseFolder) return;
    this.state = next;
    this.goneFolder = undefined;
    this.changed.fire(next);
  }

  /** Is `folder` the run in view (or its comparison's base)? */
  holds(folder: string): boolean {
    const f = path.resolve(folder);
    return this.state !== undefined && (this.state.folder === f || this.state.baseFolder === f);
  }

  /**
   * Checks that the run in view (and its base) still exist on disk; a deleted one leaves the view
   * everywhere (the change fires with undefined). True when it did.
   */
  dropIfDeleted(): boolean {
    const state = this.state;
    if (!state) return false;
    const missing = [state.folder, state.baseFolder].find((f) => f !== undefined && !fs.existsSync(f));
    if (!missing) return false;
    this.state = undefined;
    this.goneFolder = state.folder;
    this.changed.fire(undefined);
    return true;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
