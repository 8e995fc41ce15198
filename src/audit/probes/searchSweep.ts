/**
 * The exploration sweep of the `search` probe (`--search-sweep`, docs/design/probes.md,
 * "Exploration sweep"): the same route search re-run at other exploration constants c, for reach only, so a
 * reader sees whether the routes-vs-search verdict depends on c. Each sweep search draws on the
 * question's own search stream (run seed, question, `search`, simulation), so it differs from the
 * probe's search only in c, and stops at its first correct route.
 *
 * Cheap by reuse: a route already evaluated for the question (by the probe's search or an earlier
 * sweep search) is not generated again; its recorded grade and reward are fed back. The searches
 * advance in lockstep, and a new route proposed by several of them in the same step is generated
 * once, charged to the first in sweep order. A step machine like RouteSearch: `wanted()` gives the
 * new routes to evaluate, `report()` feeds each one's grade back.
 */
import type { Route } from '../../engine';
import type { SearchSettings, SearchSweepPoint } from '../../contract';
import { RouteSearch } from './routeSearch';
import { routeKey, type LengthBounds } from './routes';

/** The sweep's exploration constants, as multiples of the run's c (1.8 by default: 0.2, 0.6, 5.4). */
export const SWEEP_FACTORS: readonly number[] = [1 / 9, 1 / 3, 3];

/** The sweep's c values for a run's search constant, rounded to 4 significant digits as recorded. */
export function sweepConstants(c: number): number[] {
  return SWEEP_FACTORS.map((f) => Number((c * f).toPrecision(4)));
}

/** What one evaluation of a route gave: its grade, and the reward the search was fed. */
export interface RouteEvaluation {
  correct: boolean;
  reward: number;
}

interface SweepState {
  point: SearchSweepPoint;
  search: RouteSearch;
  /** The new route it waits on, if any. */
  waiting?: string;
  done: boolean;
}

export class SearchSweep {
  private readonly states: SweepState[];
  private readonly evaluated = new Map<string, RouteEvaluation>();

  constructor(
    numBlocks: number,
    randomFor: (simulation: number) => () => number,
    settings: SearchSettings,
    constants: readonly number[],
    private readonly budget: number,
    bounds: LengthBounds,
    /** The routes the probe's search evaluated for this question, with their grade and reward. */
    earlier: readonly (RouteEvaluation & { route: Route })[],
  ) {
    for (const e of earlier) this.evaluated.set(routeKey(e.route), { correct: e.correct, reward: e.reward });
    this.states = constants.map((c) => ({
      point: { c, reached: false, evaluated: 0, reused: 0, cost: { generations: 0, blockApplications: 0 } },
      search: new RouteSearch(numBlocks, randomFor, { ...settings, c }, bounds),
      done: false,
    }));
  }

  /**
   * The new routes the sweep searches wait on, each once, with the sweep index it is charged to;
   * empty when every sweep search is done. Routes evaluated before are fed back on the way.
   */
  wanted(): { route: Route; chargedTo: number }[] {
    const out = new Map<string, { route: Route; chargedTo: number }>();
    this.states.forEach((s, i) => {
      while (!s.done && s.waiting === undefined) {
        if (s.point.evaluated >= this.budget) {
          s.done = true;
          break;
        }
        const route = s.search.propose();
        if (!route) {
          s.done = true;
          break;
        }
        const key = routeKey(route);
        const known = this.evaluated.get(key);
        if (!known) {
          s.waiting = key;
          if (!out.has(key)) out.set(key, { route: [...route], chargedTo: i });
          break;
        }
        s.point.reused++;
        this.feed(s, known);
      }
    });
    return [...out.values()];
  }

  /** A new route's evaluation and what it cost (charged to the search `chargedTo`). */
  report(route: Route, evaluation: RouteEvaluation, chargedTo: number, cost: { generations: number; blockApplications: number }): void {
    const key = routeKey(route);
    this.evaluated.set(key, evaluation);
    const charged = this.states[chargedTo].point.cost;
    charged.generations += cost.generations;
    charged.blockApplications += cost.blockApplications;
    for (const s of this.states) {
      if (s.waiting !== key) continue;
      s.waiting = undefined;
      this.feed(s, evaluation);
    }
  }

  private feed(s: SweepState, e: RouteEvaluation): void {
    s.search.report(e.reward);
    s.point.evaluated++;
    if (e.correct) {
      s.point.reached = true;
      s.done = true;
    }
  }

  get points(): SearchSweepPoint[] {
    return this.states.map((s) => s.point);
  }
}
