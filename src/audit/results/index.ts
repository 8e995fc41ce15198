/** What records add up to: the summary, the comparison, chance levels, the cross-run tables and trajectories (their statistics are src/audit/stats). Everything outside this folder reaches it through here. */
export { chanceSummary } from './chanceLevel';
export { compareRecords } from './compare';
export { compareProbes } from './probeComparison';
export { depthSummary } from './depthSummary';
export { foreclosureSummary } from './foreclosureSummary';
export { FORK_MIN_PAIRED, forkSummary, forkTransition, type ForkTransition } from './forkSummary';
export { learnedRouteSummary, routerInput } from './learnedRouteSummary';
export { perturbationTable, type PerturbationRow, type PerturbationTable, type ProbeOnGainSet, type ProbeOverlap } from './perturbationTable';
export { summarize } from './summary';
export { distinctRunLabels, type LabelSource } from './runLabels';
export { repairTable, routesVsSearchTable, trainingTable, type ChanceColumn, type Claim, type ComparisonForTables, type RepairRow, type RoutesVsSearchTable, type RunForTables, type TableOptions, type TrainingTable } from './tables';
export { trajectory, type TrajectoryCheckpoint } from './trajectory';
export { searchSweepOf, searchSweepRows, type SearchSweepRow, type SweepSource } from './searchSweepTable';
export { passAtKDeltas } from './passAtKDelta';
