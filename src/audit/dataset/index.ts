/** Benchmark files read into questions. Everything outside this folder reaches it through here. */
export { loadDataset, parseDataset, datasetFromRows, issueWhere, type Dataset, type DatasetRow } from './dataset';
export { parquetFileRows } from './parquetBenchmark';
export { readBenchmark, DEFAULT_SPLIT, type BenchmarkOptions } from './benchmarkFile';
export { readJsonRecords, withoutPythonFloats } from './jsonLines';
export { ANSWER_FORMATS, userMessage, type AnswerFormat, type Choice, type Question, type QuestionPlace } from '../question';
