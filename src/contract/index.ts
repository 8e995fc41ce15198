/**
 * The run-format contract: the types of the run files (records.jsonl, summary.json, manifest.json,
 * comparison.json, trajectory.json) and of the pages' messages, and the pure derivations every
 * side needs. The audit writes these types; the CLI, the extension and the webview read them. Imports nothing
 * outside this folder and touches no DOM or Node API, so the browser bundle can use it too.
 */
export type { Budget, AnswerView, AnswerMatch, ContextSkip, ExemplarSkip, SkipReason, ThoughtState, GradedOutput, Attempt, AttemptPerturbation, DepthMark, DepthPoint, DepthResult, DeployedTokens, ForeclosurePrefix, ForeclosureResult, ForkArm, ForkBranch, ForkTry, ForkResult, ProbeResult, BlindChoice, GlobalRoutesResult, RouterFeatures, RepairResult, QuestionRecord, HarnessVerdict, SearchSweepPoint } from './runRecord';
export { DEPTH_MARKS } from './runRecord';
export type {
  GlobalRouteSummary,
  LearnedRouteSummary,
  BlockRepair,
  RepairNull,
  RepairSummary,
  PassAtKKind,
  ChanceLevel,
  ChanceSummary,
  ProbeExhaustion,
  ProbeComparison,
  ProbePairing,
  BlindRetention,
  BlindDropped,
  TruncationCount,
  ThoughtCount,
  ReadingSummary,
  SkippedQuestion,
  DepthSummary,
  ForeclosureSummary,
  MedianWithInterval,
  ForkSummary,
  DepthTrend,
  CoverAtTau,
  RunSummary,
  InterfaceFailures,
} from './runSummary';
export {
  PROBE_NAMES,
  SELECTOR_NAMES,
  DEFAULT_SELECTORS,
  type LearnedRouteSettings,
  type PooledStateSettings,
  type RouterFeatureKind,
  ROUTER_FEATURE_KINDS,
  type FewShotExample,
  type SubjectPrompt,
  type ExemplarOrigin,
  type Deployment,
  type PromptTruncation,
  type CorrectBy,
  type TruncatedRule,
  type GradingSettings,
  type ThinkingMarkers,
  type RemoteBackendInfo,
  type ImportedLog,
  type TokenizerSource,
  type RealizedFrom,
  type ProbeName,
  type ProbeSpec,
  type SelectorName,
  type SearchSettings,
  type SearchReward,
  type SearchRewardScale,
  SEARCH_REWARDS,
  type RouteSpaceSettings,
  type DecodingRule,
  type ProbeDecoding,
  type ShardSpec,
  type ShardSelection,
  type RunSettings,
  type RunManifest,
  type KvMemoryPlan,
  type KvCacheFidelity,
} from './runManifest';
export type { RateWithIds, Comparison, ForeclosureMoves, RunRef, StoredComparison } from './comparison';
export type { DeltaAtK, DeltaAtKMethod, PassAtKDeltaCurve } from './passAtKDelta';
export type { RunData, RunCommandLine, UnfinishedNumbers, RunStatus, ResumeOffer, HostMessage, PanelTab, SortKey, ColumnWidths, PanelUiState, WebviewMessage } from './panelMessages';
export type { TrajectoryPoint, FlowKey, TrajectoryFlow, TrajectoryResult, TrajectoryPassAtKDelta, StoredTrajectory } from './trajectory';
export type { TableData, TablesTab, TablesHostMessage, TablesWebviewMessage } from './tablesMessages';
export type { MechanismToken, BlockAccount, MechanismSkip, MechanismRecord, MechanismAgreement, MechanismSummary, MechanismData } from './mechanismRecord';
export { Z95, MIN_BOOTSTRAP_QUESTIONS, wilsonInterval, rateOf, type Interval, type Rate } from './interval';
export type { SearchSweepNumbers, SweepPointRow } from './searchSweep';
export { sweepSideText } from './sweepSideText';
export { passAtK, passAtKCurve, passAtKKindOf, questionPassAtK, passAtKRows, stopsAtFirstCorrect, zeroOnePassAtKInterval } from './passAtK';
export { QUESTION_STATES, questionState, reachableBy, repairedBy, damagedBy, type QuestionState } from './questionState';
export { NO_RATE, formatPercent } from './percent';
export { isObject } from './jsonObject';
export { SATURATION_LEVEL, chanceSaturation } from './chanceSaturation';
export { numericsDifferences, describeNumerics, numericsFor, type NumericsPlatform } from './numericsPlatform';
export { pairedVerdictText, decisionOf, storedVerdictText, type PairedVerdict, type PairedDecision, type DifferenceIntervalMethod, type PairedDelta } from './pairedDecision';
export { ANSWER_BLIND_PROBES, isAnswerBlindProbe, orderedKeys, runRates, type RunRates } from './runRates';
export { RATE_MIN_QUESTIONS, STORY_MAX_QUESTIONS, STORY_WORDS, answerText, attemptText, blindLine, countsText, gradingText, lineText, notAuditedText, ofText, probeLine, questionStory, questionTitle, questionsText, readingText, repairLine, routeText, skippedSteps, storyCounts, type QuestionStory, type SkippedStep, type StoryCounts } from './questionStory';
export { identifiedBlockDamage } from './repairDamage';
export { harnessDisagreement, type HarnessDisagreement } from './harnessDisagreement';
export { contextSkipHint, auditedCount, skippedText, type AuditedCount } from './auditedCount';
export { learnedRouteLines, pairedLine } from './learnedRouteText';
