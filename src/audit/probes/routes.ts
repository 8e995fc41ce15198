/**
 * The layer-route space of docs/design/probes.md (after CoLa / Dr.LLM) and the random-route sampler.
 *
 * A route in this space is the identity route [0..L-1] with edits applied:
 * - skip one block: block b is left out;
 * - repeat one block: block b runs twice in a row — the repeat is inserted right after its first
 *   application, so the route reads `…, b, b, …`;
 * - at most one *span* edit of 2–4 contiguous blocks i..j: either all of them skipped, or the span
 *   run again right after its first pass, so the route reads `…, i, …, j, i, …, j, j+1, …`.
 * A block appears at most twice; the route length stays within [round(2L/3), round(5L/4)] unless
 * the run sets other bounds (--min-route-length, --max-route-length; docs/design/probes.md).
 *
 * Validity is a property of the route itself (not of the edit history), so routes reached by
 * different edit orders are the same route. A run of two to four adjacent skipped blocks *is* the
 * span edit whether it came from one span skip or from adjacent single skips, so it uses up the one
 * span allowed; a run of five or more skipped blocks is invalid.
 */
import type { Route } from '../../engine';
import type { RouteSpaceSettings } from '../../contract';

/** The parsed structure of a valid route. */
export interface RouteShape {
  numBlocks: number;
  /** How many times each block runs in its first pass: 0 (skipped), 1, or 2 (repeated in place). */
  counts: number[];
  /** The span repeat, if any: blocks start..end run again right after end. */
  spanRepeat?: { start: number; end: number };
}

/** One edit of docs/design/probes.md. `length` 1 is a single-block edit, 2–4 a span edit. */
export interface RouteEdit {
  kind: 'skip' | 'repeat';
  start: number;
  length: number;
}

export function identityRoute(numBlocks: number): number[] {
  return Array.from({ length: numBlocks }, (_, i) => i);
}

export function routeKey(route: Route): string {
  return route.join(',');
}

export function isIdentity(route: Route, numBlocks: number): boolean {
  return route.length === numBlocks && route.every((b, i) => b === i);
}

/** The shortest and longest route allowed, in block applications. */
export interface LengthBounds {
  min: number;
  max: number;
}

/** The default route lengths for an L-block model: [round(2L/3), round(5L/4)]. */
export function routeLengthBounds(numBlocks: number): LengthBounds {
  return { min: Math.round((2 * numBlocks) / 3), max: Math.round((5 * numBlocks) / 4) };
}

/** The length bounds a run's route space sets for an L-block model. */
export function lengthBoundsOf(space: RouteSpaceSettings, numBlocks: number): LengthBounds {
  const d = routeLengthBounds(numBlocks);
  return { min: space.minLength ?? d.min, max: space.maxLength ?? d.max };
}

/**
 * Why these bounds cannot be used on an L-block model, or undefined: the identity (the deployment,
 * the root of every edit) must lie within them, and no route is longer than 2L (a block runs at
 * most twice).
 */
export function lengthBoundsProblem(bounds: LengthBounds, numBlocks: number): string | undefined {
  if (bounds.min > numBlocks) return `the shortest route allowed (${bounds.min}) is longer than the model's ${numBlocks} blocks; the identity route must be allowed`;
  if (bounds.max < numBlocks) return `the longest route allowed (${bounds.max}) is shorter than the model's ${numBlocks} blocks; the identity route must be allowed`;
  return undefined;
}

/** Parses a route into its shape, or returns a reason it is not in the route space. */
export function parseRoute(route: Route, numBlocks: number, bounds: LengthBounds = routeLengthBounds(numBlocks)): RouteShape | string {
  const counts = new Array<number>(numBlocks).fill(0);
  let spanRepeat: RouteShape['spanRepeat'];
  let next = 0; // the next block the first pass may run
  let pos = 0;
  while (pos < route.length) {
    const block = route[pos];
    if (!Number.isInteger(block) || block < 0 || block >= numBlocks) return `position ${pos}: block ${block} is not in 0..${numBlocks - 1}`;
    if (block >= next) {
      counts[block] = 1;
      next = block + 1;
      pos++;
      if (route[pos] === block) {
        counts[block] = 2;
        pos++;
      }
      continue;
    }
    // A step backwards can only be the span repeat: blocks block..next-1 run again, right after next-1.
    const start = block;
    const end = next - 1;
    const length = end - start + 1;
    if (spanRepeat) return `position ${pos}: a second span repeat`;
    if (length < 2 || length > 4) return `position ${pos}: a repeated span of ${length} block(s) (2–4 allowed)`;
    for (let b = start; b <= end; b++) {
      if (route[pos + b - start] !== b) return `position ${pos}: the repeated span ${start}..${end} is not run again in order`;
      if (counts[b] !== 1) return `position ${pos}: block ${b} would run more than twice or was skipped`;
    }
    spanRepeat = { start, end };
    pos += length;
  }
  const shape: RouteShape = { numBlocks, counts, ...(spanRepeat ? { spanRepeat } : {}) };
  const problem = shapeProblem(shape, route.length, bounds);
  return problem ?? shape;
}

/** Checks the route-level rules of a parsed shape; undefined when valid. */
function shapeProblem(shape: RouteShape, length: number, { min, max }: LengthBounds): string | undefined {
  if (length < min || length > max) return `length ${length} is outside [${min}, ${max}]`;
  let spans = shape.spanRepeat ? 1 : 0;
  let run = 0;
  for (let b = 0; b <= shape.numBlocks; b++) {
    if (b < shape.numBlocks && shape.counts[b] === 0) {
      run++;
      continue;
    }
    if (run > 4) return `${run} contiguous blocks skipped (at most 4)`;
    if (run >= 2) spans++;
    run = 0;
  }
  if (spans > 1) return 'more than one contiguous skip or repeat of 2–4 blocks';
  return undefined;
}

export function isValidRoute(route: Route, numBlocks: number, bounds?: LengthBounds): boolean {
  return typeof parseRoute(route, numBlocks, bounds) !== 'string';
}

/** The route a shape runs. */
export function renderRoute(shape: RouteShape): number[] {
  const route: number[] = [];
  for (let b = 0; b < shape.numBlocks; b++) {
    for (let k = 0; k < shape.counts[b]; k++) route.push(b);
    if (shape.spanRepeat && b === shape.spanRepeat.end) {
      for (let s = shape.spanRepeat.start; s <= shape.spanRepeat.end; s++) route.push(s);
    }
  }
  return route;
}

function inSpanRepeat(shape: RouteShape, block: number): boolean {
  return !!shape.spanRepeat && block >= shape.spanRepeat.start && block <= shape.spanRepeat.end;
}

/** Applies one edit to a shape; undefined when the edit touches a block that is not plain (run once, outside the span repeat). */
export function applyEdit(shape: RouteShape, edit: RouteEdit): RouteShape | undefined {
  if (edit.length < 1 || edit.length > 4 || edit.start < 0 || edit.start + edit.length > shape.numBlocks) return undefined;
  for (let b = edit.start; b < edit.start + edit.length; b++) {
    if (shape.counts[b] !== 1 || inSpanRepeat(shape, b)) return undefined;
  }
  const counts = shape.counts.slice();
  let spanRepeat = shape.spanRepeat;
  if (edit.kind === 'skip') {
    for (let b = edit.start; b < edit.start + edit.length; b++) counts[b] = 0;
  } else if (edit.length === 1) {
    counts[edit.start] = 2;
  } else {
    if (spanRepeat) return undefined;
    spanRepeat = { start: edit.start, end: edit.start + edit.length - 1 };
  }
  return { numBlocks: shape.numBlocks, counts, ...(spanRepeat ? { spanRepeat } : {}) };
}

/**
 * Every route one edit away from `route` that is in the route space, in a fixed order
 * (single skips, single repeats, span skips, span repeats; by start block), without duplicates.
 */
export function neighbourRoutes(route: Route, numBlocks: number, bounds: LengthBounds = routeLengthBounds(numBlocks)): number[][] {
  const shape = parseRoute(route, numBlocks, bounds);
  if (typeof shape === 'string') throw new Error(`not a route in the route space: ${shape}`);
  const seen = new Set<string>([routeKey(route)]);
  const out: number[][] = [];
  const edits: RouteEdit[] = [];
  for (const length of [1, 2, 3, 4]) {
    for (const kind of ['skip', 'repeat'] as const) {
      for (let start = 0; start + length <= numBlocks; start++) edits.push({ kind, start, length });
    }
  }
  // Keep the documented order: single skips, single repeats, then spans by length.
  for (const edit of edits) {
    const next = applyEdit(shape, edit);
    if (!next) continue;
    const rendered = renderRoute(next);
    if (shapeProblem(next, rendered.length, bounds)) continue;
    const key = routeKey(rendered);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(rendered);
  }
  return out;
}

/**
 * One random route: a random number (1..maxEdits) of random valid edits applied to the identity,
 * each edit uniform among the valid neighbours of the route so far. Draws come from `random`
 * only. Returns undefined when no edit is possible (a model too small for the route space).
 */
export function drawRandomRoute(numBlocks: number, random: () => number, maxEdits: number, bounds?: LengthBounds): number[] | undefined {
  const edits = 1 + Math.floor(random() * maxEdits);
  let route = identityRoute(numBlocks);
  for (let e = 0; e < edits; e++) {
    const options = neighbourRoutes(route, numBlocks, bounds);
    if (options.length === 0) break;
    route = options[Math.floor(random() * options.length)];
  }
  return isIdentity(route, numBlocks) ? undefined : route;
}

/** How many redraws a question gets before the sampler concludes the route space is used up. */
const MAX_REDRAWS = 1000;

/**
 * The random routes of one question: attempt a draws from `randomFor(a)` (the caller keys it by
 * run seed, question id, probe and attempt), rejecting the identity and routes already drawn for
 * this question by redrawing from the same stream. Fewer than `count` routes come back only when
 * the route space is exhausted.
 */
export function drawQuestionRoutes(
  numBlocks: number,
  count: number,
  randomFor: (attempt: number) => () => number,
  maxEdits = 4,
  bounds?: LengthBounds,
): number[][] {
  const seen = new Set<string>();
  const routes: number[][] = [];
  for (let attempt = 0; attempt < count; attempt++) {
    const random = randomFor(attempt);
    let drawn: number[] | undefined;
    for (let tries = 0; tries < MAX_REDRAWS && !drawn; tries++) {
      const candidate = drawRandomRoute(numBlocks, random, maxEdits, bounds);
      if (candidate && !seen.has(routeKey(candidate))) drawn = candidate;
    }
    if (!drawn) break;
    seen.add(routeKey(drawn));
    routes.push(drawn);
  }
  return routes;
}
