/**
 * A layer route drawn as a strip of blocks, in execution order: a block at its own position,
 * a repeated block (second application), and a skipped block (drawn as a gap where it would have
 * run). Colours come from theme variables in CSS; the strip carries a text alternative.
 */
import { h } from '../common/element';
import { describeRoute, routeCells } from './routeLayout';

export function routeStrip(route: readonly number[], numBlocks: number): HTMLElement {
  const label = describeRoute(route, numBlocks);
  const strip = h('span', { class: 'route', role: 'img', 'aria-label': label, title: label });
  for (const cell of routeCells(route, numBlocks)) {
    strip.appendChild(h('span', { class: `route-cell route-${cell.kind}`, 'aria-hidden': 'true' }, String(cell.block)));
  }
  return strip;
}
