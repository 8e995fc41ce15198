/**
 * Δpass@k in the Trajectory tab: each checkpoint's pass@k against the first checkpoint's at every
 * k ≤ B (realized, each probe, the ceiling), paired by question id, as the audit computes it for a
 * comparison (trajectory.json's passAtKDeltas). The Comparison section's under-20 rule holds: with
 * fewer than RATE_MIN_QUESTIONS paired questions a step's differences are said, not drawn. The
 * trajectory crosses postMessage: a curve that is not numbers is left out.
 */
import { RATE_MIN_QUESTIONS, type TrajectoryResult } from '../../../src/contract';
import { count, h } from '../common/element';
import { passAtKDeltaBlock, type PassAtKDeltaBlock } from '../comparison/passAtKDeltaChart';
import { wellFormedCurves } from '../comparison/passAtKDeltaText';

export interface TrajectoryDeltas {
  element: HTMLElement;
  /** The drawn steps' charts, to draw once the element is in the page. */
  blocks: PassAtKDeltaBlock[];
}

/** Undefined for a trajectory of one checkpoint, or one written before the differences were stored. */
export function trajectoryDeltas(d: TrajectoryResult): TrajectoryDeltas | undefined {
  const steps = Array.isArray(d.passAtKDeltas) ? d.passAtKDeltas.filter((s) => s && typeof s.label === 'string' && typeof s.base === 'string') : [];
  const blocks: PassAtKDeltaBlock[] = [];
  const sections = steps.flatMap((step) => {
    const curves = wellFormedCurves(step.curves);
    if (curves.length === 0) return [];
    const title = `${step.label} − ${step.base}: pass@k along k`;
    const n = curves[0].n;
    if (n < RATE_MIN_QUESTIONS) {
      return [h('section', { class: 'tj-delta tj-delta-few', 'data-checkpoint': step.label },
        h('h4', {}, title),
        h('p', { class: 'muted' }, `Fewer than ${RATE_MIN_QUESTIONS} paired questions (n = ${count(n)}): the differences along k are not drawn; they start at ${RATE_MIN_QUESTIONS} questions, as every difference in the comparison.`))];
    }
    const block = passAtKDeltaBlock(curves, { tuned: step.label, base: step.base });
    blocks.push(block);
    return [h('section', { class: 'tj-delta', 'data-checkpoint': step.label },
      h('h4', {}, title),
      h('p', { class: 'muted' }, `Paired over n = ${count(n)} questions. 95% intervals: Newcombe's paired score where every value is 0 or 1, a seeded paired bootstrap elsewhere; not adjusted over k.`),
      block.element)];
  });
  if (sections.length === 0) return undefined;
  return {
    element: h('section', { class: 'tj-deltas', 'aria-label': 'Each checkpoint against the first: pass@k along k' },
      h('h3', {}, `Ceilings along k: each checkpoint − ${steps[0].base}`),
      h('p', { class: 'muted' }, 'At every k up to the budget: realized (the same at every k), each probe, and the reachable ceiling (realized, or reached within k by some probe: the one ceiling of the comparison, within k). The ceiling at the budget alone cannot tell a lower ceiling from curves that cross.'),
      ...sections),
    blocks,
  };
}
