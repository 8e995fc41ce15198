/** What several VS Code suite files share: the extension under test and the fixture runs. */
import * as path from 'node:path';

export const EXTENSION_ID = 'reach-audit.reach-audit';
// out/test/suite → test/fixtures/runs in the repository (README there describes each run).
export const FIXTURE_RUNS = path.resolve(__dirname, '../../../test/fixtures/runs');
export const BASE_RUN = '2026-12-01T09-30-00Z-demo-base';
