/**
 * Runs going when the window went away (a reload, a crash of the extension host): the engine child
 * dies with the extension host, so such a run stopped without a word. Each run's folder is noted in
 * the workspace's state while it goes and struck off when it ends; a folder still noted at the next
 * activation stopped that way, and the user is told so, with Resume — unless it was a run started
 * as a process of its own (reachAudit.keepRunningOnReload) that still runs: that one is followed again.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { SUMMARY_FILE } from '../../audit/store';

const GOING_KEY = 'reachAudit.runsGoing';

export class InterruptedRuns {
  constructor(private readonly state: vscode.Memento) {}

  /** The run folders noted as going (by this window, or by the one before a reload). */
  noted(): string[] {
    const v = this.state.get<unknown>(GOING_KEY);
    return Array.isArray(v) ? v.filter((f): f is string => typeof f === 'string') : [];
  }

  started(folder: string): Thenable<void> {
    const noted = this.noted();
    return noted.includes(folder) ? Promise.resolve() : this.state.update(GOING_KEY, [...noted, folder]);
  }

  ended(folder: string): Thenable<void> {
    const noted = this.noted();
    return noted.includes(folder) ? this.state.update(GOING_KEY, noted.filter((f) => f !== folder)) : Promise.resolve();
  }

  /**
   * At activation (nothing of this window runs yet): the noted runs stopped with the window before.
   * Returns those that still exist unfinished, and forgets them all.
   */
  async takeStopped(): Promise<string[]> {
    return (await this.takeAtActivation(() => false)).stopped;
  }

  /**
   * At activation: the noted runs still `running` (a CLI process of their own that outlived the
   * window) stay noted, to be followed again; the rest are forgotten, and those that exist
   * unfinished are returned as stopped.
   */
  async takeAtActivation(running: (folder: string) => boolean): Promise<{ running: string[]; stopped: string[] }> {
    const noted = this.noted();
    const goingOn = noted.filter((f) => running(f));
    await this.state.update(GOING_KEY, goingOn);
    return {
      running: goingOn,
      stopped: noted.filter((f) => !goingOn.includes(f) && fs.existsSync(path.join(f, 'manifest.json')) && !fs.existsSync(path.join(f, SUMMARY_FILE))),
    };
  }
}
