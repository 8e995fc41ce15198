/** A depth mark (where a depth-probe prefix ends) in words, as the detail pane and the charts say it. */
import type { DepthMark } from '../../../src/contract';

const MARK_TEXT: Record<DepthMark, string> = { '0': '0', '1/4': '¼', '1/2': '½', '3/4': '¾', 'last-line': 'last line break' };

export function depthMarkText(at: DepthMark): string {
  return MARK_TEXT[at] ?? String(at);
}
