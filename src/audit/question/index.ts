/** The question and its gold answer's format: the ground the grading, the dataset readers and the probes stand on. Everything outside this folder reaches it through here. */
export { ANSWER_FORMATS, questionSubject, userMessage, type AnswerFormat, type Choice, type DatasetSchema, type Question, type QuestionPlace } from './question';
