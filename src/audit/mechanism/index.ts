/** Why a reachable answer does not come out: divergence points, per-block accounts, mechanism.jsonl and the run table. Everything outside this folder reaches it through here. */
export { failureSetOf, repairingBlocks, summarizeRun } from './mechanismSummary';
export { explainRun, type ExplainResult } from './explainRun';
export { MECHANISM_FILE, readMechanism } from './mechanismStore';
