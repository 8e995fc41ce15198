/** The audit runner: one question's steps, the pipeline that feeds the generation queue, the audit into a run folder, estimates and regrading. Everything outside this folder reaches it through here. */
export { estimateText, learnedRouteEstimateText, formatDuration, type AuditEstimate, type EstimateMemory } from './auditEstimate';
export { auditQuestions } from './questionPipeline';
export { FORK_TOKEN_RECORD_K, forkPlan, type ForkPlan } from './forkProbe';
export { globalRoutePool } from './questionSteps';
export { emptyRegradeCounts, regradeRecord } from './regrade';
export { thinkingOfRun } from './runThinking';
export { RUN_FOLDER_ADVICE, TOOL_VERSION, ResumeRefused, runAudit, type AuditProgress, type RunAuditResult } from './runFolderAudit';
// One question's steps, which the bench's stage-by-stage baseline runner (src/bench) composes its own way.
export { AuditAborted, auditDecodings, blindChoices, checkBudgetFits, deploymentExtras, finishRepair, gradedUnder, loggedGeneration, probeResult, questionPerturbation, routerFeaturesOf, startRecord, startRepair, type AuditStage } from './questionSteps';
