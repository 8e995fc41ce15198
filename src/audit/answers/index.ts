/** Grading: an answer extracted from an output and compared with the gold answer, per answer format. Everything outside this folder reaches it through here. */
export { hasAnswerMarker } from './answerMarker';
export { answerSlot } from './answerSlot';
export { lastBoxed } from './boxed';
export { grade, normalizeAnswer, type Grade } from './grade';
export { CORRECT_BY, DEFAULT_GRADING, TRUNCATED_RULES } from './gradingSettings';
export { gsm8kGold } from './gsm8k';
export { parseRational } from './rational';
export { compilePattern } from './text';
export { DEFAULT_THINKING, parseThinkingMarkers, runThinking, thinkingMarkersIn } from './thinkingMarkers';
export { splitThought } from './thoughtSplit';
