/** The engine service: the child-process protocol and its codec, the engine process client, the audit job and its options. Everything outside this folder reaches it through here. */
export { ENGINE_ALLOCATOR_ENV } from './allocatorTuning';
export { readDataset, readPreSettings, selectQuestions } from './auditInputs';
export { PROGRESS_LINES_ENV, watchTrainingRun, type TrainingRunWatchPlan, type TrainingRunWatchResult, type WatchedCheckpoint } from './trainingRunWatch';
export { watchStatusLine, type WatchStatus } from './checkpointQueue';
export { defaultComparisonName, defaultRunName, prepareAuditJob, type AuditJobResult } from './auditJob';
export { AUDIT_FLAGS, AUDIT_FLAGS_HELP, CLI_ONLY_OPTION_NAMES, DEFAULT_PROBES, flagsFromOptions, optionsFromFlags, type AuditFlagValues, type AuditOptions } from './auditOptions';
export { EngineError, EngineProcess, type EngineRequestHandle, type RequestBody, type RequestEvent, type RequestOutcome } from './engineClient';
export { EngineService, MAX_REQUEST_BYTES } from './engineService';
export { checkListenAccess, DEFAULT_MAX_CONNECTIONS, isLoopback, startHttpServer } from './httpServer';
export { LineSplitter, encodeLine, type AuditRequestOptions, type ProgressEvent, type QuestionRequestOptions, type RecordEvent, type RunLabel, type StartedEvent } from './protocol';
export { prepareComparisonSides, writeComparisonOf, type ComparisonSide, type SidePlan } from './compareJob';
export { reproduceCommand } from './reproduceCommand';
export { LOG_FORMATS, readHarnessLogs, type LogFormat } from './harnessLogFiles';
export { OPTIONS_REACHED_OTHERWISE, optionSettings, optionsFromSettings, SETTINGS_SECTION } from './optionSettings';
export { AUDIT_OPTIONS, type OptionSpec } from './auditOptions';
export { isRemoteBackend, refuseCheckpointsOnServers } from './backend';
export { SERVER_KEY_ENV, serverKeyEnv, withServerKey } from './serverKey';
export { DEFAULT_VERIFY_QUESTIONS, DEFAULT_VERIFY_SEED, planVerify, verifyOutcome, verifyText, type VerifyOutcome, type VerifyPlan } from './verifyRun';
