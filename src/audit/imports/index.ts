/** Evaluation harness logs (lm-evaluation-harness samples, Inspect .eval and .json) read and turned into runs. Everything outside this folder reaches it through here. */
export { importedRun, loggedDataset, type ImportOptions } from './importedRun';
export { readInspectLog } from './inspectLog';
export { readLightevalDetails, lightevalFileName, type LightevalFile } from './lightevalDetails';
export { readLmEvalSamples, looksLikeLmEvalSamples, lmEvalFileName, type LmEvalFile } from './lmEvalSamples';
export type { HarnessLog, HarnessReading, LoggedQuestion } from './harnessLog';
