/** The audit runner: one question's steps, the pipeline that feeds the generation queue, the audit into a run folder, estimates and regrading. Everything outside this folder reaches it through here. */
export { estimateText, formatDuration, type AuditEstimate } from './auditEstimate';
export { auditQuestions } from './questionPipeline';
export { globalRoutePool } from './questionSteps';
export { emptyRegradeCounts, regradeRecord } from './regrade';
export { RUN_FOLDER_ADVICE, TOOL_VERSION, runAudit, type AuditProgress, type RunAuditResult } from './runFolderAudit';
export { auditQuestionsByStage } from './stagedPipeline';
