/**
 * When the "using the model …" notice is worth showing: once per role and folder in a session (it
 * named the same folder on every command, so it turned into noise), and never while generations
 * run on servers, where the audit's model is the one the servers serve. Pure: no vscode.
 */
import * as path from 'node:path';
import type { ModelRole } from './reusedModelNote';

export class ReusedModelNotices {
  private readonly shown = new Set<string>();

  /** True the first time `folder` is reused for `role` with a local backend; false after, and on servers. */
  take(role: ModelRole, folder: string, remote: boolean): boolean {
    if (remote) return false;
    const key = `${role}\0${path.resolve(folder)}`;
    if (this.shown.has(key)) return false;
    this.shown.add(key);
    return true;
  }
}
