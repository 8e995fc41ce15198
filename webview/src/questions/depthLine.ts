/**
 * The detail pane's one sentence for a question's depth of loss (`record.depth`): where the answer
 * stops being reached, or that the output was too short to cut. Text only, so the node tests read it.
 */
import type { DepthResult } from '../../../src/contract';
import { depthMarkText } from '../common/depthMarkText';

/** One sentence for the question's depth of loss. */
export function depthLine(depth: DepthResult): string {
  const points = depth.points;
  if (depth.lostIn === 'too-short') {
    const from = depth.deepestReached === null ? 'not reached even from the empty prefix' : 'reached from the empty prefix';
    return `The deployed output is too short to cut (${depth.outputTokens} token${depth.outputTokens === 1 ? '' : 's'}, one distinct prefix): ${from}, with no depth at which to lose it.`;
  }
  if (depth.deepestReached === null) return 'Not reached from any prefix of the deployed output, not even the empty one: the answer is lost before the first token.';
  const deepest = depthMarkText(points[depth.deepestReached].at);
  if (!depth.noReturn) return `Reached even from the deepest prefix (${deepest}): the answer is lost in the last stretch of the output.`;
  const lost = depthMarkText(points[depth.noReturn.point].at);
  return `Reached from ${deepest} of the deployed output, not from ${lost} on: the point of no return lies between them, in quarter ${depth.lostIn} of the output.`;
}
