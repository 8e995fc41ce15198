/**
 * A made-up next question after an answer ("The answer is 18.\n\nQuestion: …\nThe answer is 3"):
 * what it says answers another question, so an answer is read only from the text before it.
 */
const NEXT_QUESTION = /\n[ \t]*(?:\*\*)?(?:Question|Q|Problem)[ \t]*(?:\d+[ \t]*)?(?:\*\*)?[ \t]*[:.]/g;

/**
 * Where this question's answer text ends: at the first next-question heading after `firstAnswerAt`
 * (the offset of the first answer the output states; a heading before any answer is the output
 * restating its own question), else at the end of the output.
 */
export function ownAnswerEnd(output: string, firstAnswerAt: number): number {
  for (const m of output.matchAll(NEXT_QUESTION)) {
    if ((m.index ?? 0) > firstAnswerAt) return m.index ?? output.length;
  }
  return output.length;
}
