/**
 * Copies the VS Code pictures of the README and docs/ from the ones the VS Code suite took, so they
 * are retaken, not edited by hand: each picture names the suite's screenshot it is (a whole-window
 * or a panel-only shot, as test/suite saves them through test/vscode/pageProbes.ts).
 *
 *   npm run build && npx tsc -p . && REACH_AUDIT_SUITE_FILES=runsView.test.js,visibleState.test.js,userFlows.test.js,wholeStory.test.js,tablesView.test.js,watchTrainingRun.test.js \
 *     node out/test/vscode/runInCodeServer.js
 *   node out/tools/copyReadmePictures.js        (copies out/test/screenshots/tree/* → media/screenshots/)
 *
 * A picture the suite did not take this time is named and left as it was (exit code 1).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const TAKEN = path.join(ROOT, 'out', 'test', 'screenshots', 'tree');
const README_PICTURES = path.join(ROOT, 'media', 'screenshots');

/** README picture → the suite's screenshot (and the suite file that takes it). */
const PICTURES: Record<string, { shot: string; by: string }> = {
  'vscode-runs-welcome.png': { shot: 'runs-welcome-window.png', by: 'visibleState.test.ts' },
  'vscode-compare-dark.png': { shot: 'compare-dark-window.png', by: 'userFlows.test.ts' },
  'vscode-charts-light.png': { shot: 'compare-charts-light-panel.png', by: 'userFlows.test.ts' },
  'vscode-editor-dark.png': { shot: 'editor-dark-window.png', by: 'userFlows.test.ts' },
  'vscode-routes-vs-search.png': { shot: 'routes-vs-search-panel.png', by: 'wholeStory.test.ts' },
  'vscode-one-question.png': { shot: 'one-question-window.png', by: 'wholeStory.test.ts' },
  'vscode-tables-dark.png': { shot: 'tables-dark-window.png', by: 'tablesView.test.ts' },
  'vscode-trajectory-dark.png': { shot: 'trajectory-dark-window.png', by: 'tablesView.test.ts' },
  'vscode-watch-dark.png': { shot: 'watch-dark-window.png', by: 'watchTrainingRun.test.ts' },
};

let missing = 0;
for (const [picture, { shot, by }] of Object.entries(PICTURES)) {
  const from = path.join(TAKEN, shot);
  if (!fs.existsSync(from)) {
    console.log(`not taken: ${shot} (${by}); ${picture} left as it was`);
    missing++;
    continue;
  }
  fs.copyFileSync(from, path.join(README_PICTURES, picture));
  console.log(`${picture} ← ${path.relative(ROOT, from)}`);
}
process.exit(missing === 0 ? 0 : 1);
