/**
 * The answer-aware route search of the `search` probe (docs/design/probes.md): Monte-Carlo tree search
 * whose nodes are routes and whose children are single edits (routes.ts neighbours).
 *
 * One simulation evaluates exactly one route that this search has not evaluated before; its reward
 * is the graded correctness (1 or 0). Written as a step machine — `propose()` gives the next route,
 * `report(reward)` feeds its grade back — so the runner can advance many questions' searches in
 * lockstep and batch one evaluation per question into each engine call.
 *
 * A simulation walks down from the root (the identity route, which is the deployment and is never a
 * search candidate). At each node, with probability `exploration` it moves to a uniformly random
 * child (any valid edit whose subtree is not used up); otherwise it expands a new child while the
 * node has fewer expanded children than its widening limit 1 + floor(visits^α) (α = 0.5 by
 * default), and else moves to the expanded child with the best UCB = mean − λ·len/L +
 * c·sqrt(ln N / n) (under rewardScale 'spread' the first two terms in units of the standard
 * deviation of the rewards this question's search has seen). Moving to a child not yet evaluated
 * evaluates it, which ends the simulation.
 * Progressive widening is what lets a small budget go deeper than the first layer of edits; with
 * widening off (plain UCT) the first |children| simulations are all spent on single edits of the
 * identity. Where this departs from the published route searches, and why: docs/design/probes.md,
 * "Search".
 */
import type { Route } from '../../engine';
import { identityRoute, neighbourRoutes, routeKey, routeLengthBounds, type LengthBounds } from './routes';
import type { SearchSettings } from '../../contract';

/** The tree's constants; the reward (SearchSettings.reward) is the caller's: RouteSearch only sees its numbers (and rescales them under rewardScale 'spread'). */
export const DEFAULT_SEARCH: Required<Omit<SearchSettings, 'reward' | 'rewardScale' | 'sweep'>> = { c: 1.8, lambda: 0, exploration: 0.1, widening: 0.5 };

interface SearchNode {
  route: number[];
  parent?: SearchNode;
  children: SearchNode[];
  /** Valid neighbour routes, computed on first visit. */
  options?: number[][];
  visits: number;
  rewardSum: number;
  /** True once the node and every route below it reachable as new is used up. */
  exhausted: boolean;
}

export class RouteSearch {
  private readonly root: SearchNode;
  /** Routes evaluated (and the identity), so no route is evaluated twice. */
  private readonly seen = new Set<string>();
  private pending?: SearchNode;
  private simulations = 0;
  /**
   * Running mean and sum of squared deviations of the rewards reported so far (Welford's update):
   * the one-pass Σx² / n − mean² cancels when the rewards are close (0.3 + {0..3}·1e-9 gave 0).
   */
  private rewardMean = 0;
  private rewardDeviations = 0;

  constructor(
    private readonly numBlocks: number,
    /** The random stream of simulation i, keyed by (run seed, question id, 'search', i) by the caller. */
    private readonly randomFor: (simulation: number) => () => number,
    private readonly settings: SearchSettings = DEFAULT_SEARCH,
    /** The route space's length bounds (default: the model's, routes.ts). */
    private readonly bounds: LengthBounds = routeLengthBounds(numBlocks),
  ) {
    this.root = { route: identityRoute(numBlocks), children: [], visits: 0, rewardSum: 0, exhausted: false };
    this.seen.add(routeKey(this.root.route));
  }

  /** Number of routes evaluated so far. */
  get evaluated(): number {
    return this.simulations;
  }

  /** The next route to evaluate, or undefined when every route reachable by edits has been evaluated. */
  propose(): Route | undefined {
    if (this.pending) throw new Error('propose() called twice without report()');
    const random = this.randomFor(this.simulations);
    // Walks that end in a used-up subtree mark it and start again from the root, drawing on the same stream.
    while (!this.root.exhausted) {
      const node = this.walk(random);
      if (node) {
        this.pending = node;
        return node.route;
      }
    }
    return undefined;
  }

  /** Feeds back the reward (graded correctness) of the route from the last propose(). */
  report(reward: number): void {
    const node = this.pending;
    if (!node) throw new Error('report() without a proposed route');
    this.pending = undefined;
    this.simulations++;
    const before = reward - this.rewardMean;
    this.rewardMean += before / this.simulations;
    this.rewardDeviations += before * (reward - this.rewardMean);
    for (let n: SearchNode | undefined = node; n; n = n.parent) {
      n.visits++;
      n.rewardSum += reward;
    }
  }

  private optionsOf(node: SearchNode): number[][] {
    node.options ??= neighbourRoutes(node.route, this.numBlocks, this.bounds);
    return node.options;
  }

  /** New (never evaluated) neighbour routes of a node that are not already its children. */
  private freshOptions(node: SearchNode): number[][] {
    return this.optionsOf(node).filter((r) => !this.seen.has(routeKey(r)));
  }

  private expand(node: SearchNode, route: number[]): SearchNode {
    const child: SearchNode = { route, parent: node, children: [], visits: 0, rewardSum: 0, exhausted: false };
    node.children.push(child);
    this.seen.add(routeKey(route));
    return child;
  }

  /** One walk from the root; returns the new node to evaluate, or undefined after marking a dead end. */
  private walk(random: () => number): SearchNode | undefined {
    let node = this.root;
    for (;;) {
      const fresh = this.freshOptions(node);
      const live = node.children.filter((c) => !c.exhausted);
      if (fresh.length === 0 && live.length === 0) {
        node.exhausted = true;
        return undefined;
      }
      if (random() < this.settings.exploration) {
        // A uniformly random child among everything still open: new routes and live subtrees.
        const pick = Math.floor(random() * (fresh.length + live.length));
        if (pick < fresh.length) return this.expand(node, fresh[pick]);
        node = live[pick - fresh.length];
        continue;
      }
      const widening = this.settings.widening ?? DEFAULT_SEARCH.widening;
      // Math.sqrt for the default: exactly the limit runs made before α could be set used.
      const widthLimit = widening === 'off' ? Infinity : 1 + Math.floor(widening === 0.5 ? Math.sqrt(node.visits) : Math.pow(node.visits, widening));
      if (fresh.length > 0 && (node.children.length < widthLimit || live.length === 0)) {
        return this.expand(node, fresh[Math.floor(random() * fresh.length)]);
      }
      node = this.bestChild(node, live);
    }
  }

  /** The standard deviation of the rewards seen so far; 0 while they are all equal. */
  rewardSpread(): number {
    const n = this.simulations;
    if (n < 2) return 0;
    return Math.sqrt(Math.max(this.rewardDeviations / n, 0));
  }

  private bestChild(node: SearchNode, live: SearchNode[]): SearchNode {
    const { c, lambda } = this.settings;
    const logN = Math.log(Math.max(node.visits, 1));
    const spread = this.settings.rewardScale === 'spread' ? this.rewardSpread() : 0;
    let best = live[0];
    let bestScore = -Infinity;
    for (const child of live) {
      // An evaluated child always has visits ≥ 1.
      const n = Math.max(child.visits, 1);
      const value = child.rewardSum / n - (lambda * child.route.length) / this.numBlocks;
      // In units of the rewards' spread, c weighs the same against any reward's scale.
      const score = (spread > 0 ? value / spread : value) + c * Math.sqrt(logN / n);
      if (score > bestScore) {
        bestScore = score;
        best = child;
      }
    }
    return best;
  }
}
