/**
 * Where each block of a layer route goes in its drawing: a block at its own position, a repeated
 * block (second application), a skipped block (shown where it would have run). DOM-free.
 */

export type RouteCellKind = 'identity' | 'repeat' | 'skip';

export interface RouteCell {
  block: number;
  kind: RouteCellKind;
}

/**
 * Cells for `route` over a model of `numBlocks` blocks. Blocks never run are placed where the
 * identity route would have run them; a block's second application is a repeat.
 */
export function routeCells(route: readonly number[], numBlocks: number): RouteCell[] {
  const cells: RouteCell[] = [];
  const seen = new Set<number>();
  let next = 0;
  for (const block of route) {
    if (seen.has(block)) {
      cells.push({ block, kind: 'repeat' });
      continue;
    }
    for (let skipped = next; skipped < block; skipped++) if (!seen.has(skipped) && !route.includes(skipped)) cells.push({ block: skipped, kind: 'skip' });
    cells.push({ block, kind: 'identity' });
    seen.add(block);
    next = Math.max(next, block + 1);
  }
  for (let skipped = next; skipped < numBlocks; skipped++) if (!seen.has(skipped)) cells.push({ block: skipped, kind: 'skip' });
  return cells;
}

/** A sentence describing the route for screen readers and the tooltip. */
export function describeRoute(route: readonly number[], numBlocks: number): string {
  const cells = routeCells(route, numBlocks);
  const skipped = cells.filter((c) => c.kind === 'skip').map((c) => c.block);
  const repeated = cells.filter((c) => c.kind === 'repeat').map((c) => c.block);
  const isIdentity = skipped.length === 0 && repeated.length === 0 && route.every((b, i) => b === i);
  if (isIdentity) return `identity route, ${route.length} blocks`;
  const parts = [`route ${route.join(' ')}`, `${route.length} positions`];
  if (skipped.length > 0) parts.push(`skips ${skipped.join(', ')}`);
  if (repeated.length > 0) parts.push(`repeats ${repeated.join(', ')}`);
  return parts.join('; ');
}
