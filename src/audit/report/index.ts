/** Reports of runs and comparisons (text, HTML) and the views of the cross-run tables. Everything outside this folder reaches it through here. */
export { comparisonReportHtml, runReportHtml } from './htmlReport';
export { Html } from './safeHtml';
export { formatComparison, formatSummary } from './summaryText';
export { forkLines, forkTransitionText } from './forkText';
export { repairView, routesVsSearchView, tableCsv, tablesHtml, tablesMarkdown, tablesText, trainingView, trajectoryChart, trajectoryPassChart, trajectoryViews, type TableView } from './tablesReport';
export { TABLE_KINDS, tableSet, type TableKind, type TableSet } from './tableSet';
export { mechanismStrip, mechanismTable } from './mechanismText';
export { passAtKDeltaLines } from './passAtKDeltaText';
export { retentionTableLines } from './retentionTable';
export { kvCacheFidelityText } from './kvCacheFidelityText';
