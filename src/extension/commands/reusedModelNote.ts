/**
 * The words that say which model folder an audit reuses, and why, when no picker asks for it: the
 * folder last picked in this workspace comes before the settings, and a notice names it so that it
 * is never reused silently (as it would be while `reachAudit.modelPath` is empty).
 */
import * as path from 'node:path';

export type ModelRole = 'model' | 'base' | 'tuned';

const SETTING_OF: Record<ModelRole, string> = { model: 'modelPath', base: 'baseModelPath', tuned: 'tunedModelPath' };
const WHAT: Record<ModelRole, string> = { model: 'model', base: 'base checkpoint', tuned: 'trained checkpoint' };

/** The notice shown when `folder`, the one last picked in this workspace, is used for `role`. */
export function reusedModelNote(role: ModelRole, folder: string, fromSettings: string | undefined): string {
  const setting = `reachAudit.${SETTING_OF[role]}`;
  const why =
    fromSettings === undefined || path.resolve(fromSettings) === path.resolve(folder)
      ? fromSettings === undefined
        ? `${setting} is empty`
        : `it is also ${setting}`
      : `the last pick comes before ${setting} (${fromSettings})`;
  const change = role === 'model' ? 'Select Model… picks another.' : 'Pick Another… picks another for the next comparison.';
  return `Reach Audit: using the ${WHAT[role]} ${path.basename(folder)} (${folder}), the folder last picked in this workspace — ${why}. ${change}`;
}
