/**
 * The dataset the bundled demo audits: a copy in the user's workspace, not the file inside the
 * extension's install folder — runs name the file they read, and the editor marks each audited
 * line in that file, so a demo of the install folder's copy left the user's copy bare. No vscode.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The workspace folder the demo's data goes into. */
export const DEMO_DATA_FOLDER = 'reach-audit-demo';

/**
 * The workspace copy of `bundled` (written the first time; an identical file already there is
 * used as it is, a different one is left alone and the copy gets a numbered name). Without a
 * workspace folder the bundled file itself.
 */
export function demoDataFile(bundled: string, workspace: string | undefined): string {
  if (!workspace) return bundled;
  const content = fs.readFileSync(bundled);
  const folder = path.join(workspace, DEMO_DATA_FOLDER);
  const { name, ext } = path.parse(bundled);
  for (let k = 1; k < 100; k++) {
    const target = path.join(folder, k === 1 ? `${name}${ext}` : `${name}-${k}${ext}`);
    if (!fs.existsSync(target)) {
      fs.mkdirSync(folder, { recursive: true });
      fs.writeFileSync(target, content);
      return target;
    }
    if (fs.readFileSync(target).equals(content)) return target;
  }
  return bundled;
}
