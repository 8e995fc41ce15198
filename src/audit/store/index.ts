/** The run folder on disk: manifest, records, summary, shards, comparison files and the schemas they are read with. Everything outside this folder reaches it through here. */
export { COMPARISON_FILE, compareRuns, loadRun, newComparisonFolder, readComparison, writeComparison } from './comparisonStore';
export { comparisonMismatches, manifestMismatches } from './manifest';
export { modelContentHash, tokenizerContentHash } from './modelFingerprint';
export { checkRecordSet, recordsVsDataset } from './recordSetCheck';
export { validateManifest, validateSummary } from './runFileValidation';
export { FAILURE_SET_FILE, JsonLinesAppender, MANIFEST_FILE, MAX_RUN_LINE_BYTES, RECORDS_FILE, SUMMARY_FILE, TIMINGS_FILE, UnwritableLineError, latestRunFolder, newRunFolder, prepareRunFolder, readJsonFile, readJsonLines, readManifest, readRecords, readSummary, writeFileAtomic, writeJson, writeManifest } from './runStore';
export { mergeShards, parseShard, shardQuestions, shardSelection } from './shards';
export { TRAJECTORIES_FOLDER, TRAJECTORY_FILE, TableSourceError, loadRunForTables, loadTableSources, loadTrajectoryCheckpoints, readTrajectoryFile, type CheckpointRef, type SourceOptions } from './tableSources';
export { type JsonLines } from './runStore';
export { validated } from './runFileValidation';
export { describeTally, fieldKind, recordDifference, sampleIds, tallyByKind, type FieldDifference, type FieldKind, type KindTally, type RecordDifference } from './recordDifferences';
