/** Benchmark files read into questions. Everything outside this folder reaches it through here. */
export { loadDataset, parseDataset, type Dataset } from './dataset';
export { ANSWER_FORMATS, userMessage, type AnswerFormat, type Choice, type Question } from './question';
