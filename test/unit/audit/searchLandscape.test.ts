/**
 * The informed search on constructed landscapes (issue 38): an 8-block model where each question's
 * one correct route lies 3 edits from the identity, drawn per question, and the route search is
 * given the rewards `--search-reward gold-logprob` would give it. Where the gold's probability falls
 * with a route's edit distance from the answer's route, the search at the settings the CLI gives
 * gold-logprob reaches the answer on many times more questions than random routes or the 0/1 search
 * at the same budget. Before the reward was taken in units of its spread (per question) it did not:
 * the exploration term drowned it (of 600 questions at B = 64: random 6, 0/1 search 9, raw
 * gold-logprob at c = 1.8 23 and at c = 0.2 46; in units of its spread 91 and 130). Where the gold's
 * probability says nothing about the distance (seeded noise), the same search does not beat random
 * routes: its gain comes from the reward, not from the tree.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RouteSearch } from '../../../src/audit/probes/routeSearch';
import { searchReward } from '../../../src/audit/probes/goldAnswerScore';
import { drawQuestionRoutes, identityRoute, neighbourRoutes, routeKey } from '../../../src/audit/probes/routes';
import { mcnemarExact, seededRandom } from '../../../src/audit/stats';
import { optionsFromFlags } from '../../../src/service/auditOptions';
import { readPreSettings, runSettings } from '../../../src/service/auditInputs';
import type { Route } from '../../../src/engine/types';
import { routeEditDistance } from '../../support/routeEditDistance';

const L = 8;
const QUESTIONS = 240;
const BUDGET = 64;

const distance = routeEditDistance;

/** Every route exactly 3 edits from the identity (breadth-first over the search's own edits). */
function routesThreeEditsAway(): number[][] {
  const seen = new Set([routeKey(identityRoute(L))]);
  let frontier = [identityRoute(L)];
  for (let d = 1; d <= 3; d++) {
    const next: number[][] = [];
    for (const r of frontier) {
      for (const n of neighbourRoutes(r, L)) {
        if (seen.has(routeKey(n))) continue;
        seen.add(routeKey(n));
        next.push(n);
      }
    }
    frontier = next;
  }
  return frontier;
}

const answers = routesThreeEditsAway();
const answerOf = (q: number) => answers[Math.floor(seededRandom(7, `q${q}`, 'answer', 0)() * answers.length)];

/** The mean gold log-probability a wrong route gets: falling with distance, or seeded noise. */
type Landscape = (route: Route, answer: readonly number[], q: number) => number;
/** A gentle slope: the gold's probability halves about every 4.6 edits. */
const falling: Landscape = (route, answer) => -0.15 * distance(route, answer);
const noise: Landscape = (route, _answer, q) => -0.15 * 6 * seededRandom(11, `q${q}`, routeKey(route))();
const blind: Landscape = () => -Infinity;

/** The settings the CLI records for `--search-reward gold-logprob` and nothing else set. */
const informedDefaults = runSettings(readPreSettings(optionsFromFlags({ probe: ['search:64'], 'search-reward': 'gold-logprob' })), L, { limit: null, ids: null }, QUESTIONS).search;

function searchReaches(q: number, landscape: Landscape, settings = informedDefaults): boolean {
  const answer = answerOf(q);
  const search = new RouteSearch(L, (i) => seededRandom(3, `q${q}`, 'search', i), settings);
  for (let i = 0; i < BUDGET; i++) {
    const route = search.propose();
    if (!route) return false;
    if (routeKey(route) === routeKey(answer)) return true;
    search.report(searchReward(false, { meanLogprob: landscape(route, answer, q), tokens: 1, appended: false, blockApplications: 0 }));
  }
  return false;
}

function randomReaches(q: number): boolean {
  const key = routeKey(answerOf(q));
  return drawQuestionRoutes(L, BUDGET, (a) => seededRandom(3, `q${q}`, 'routes', a), 4).some((r) => routeKey(r) === key);
}

/** Hits of each probe and the exact McNemar p of their paired difference. */
function duel(landscape: Landscape) {
  let search = 0;
  let random = 0;
  let searchOnly = 0;
  let randomOnly = 0;
  for (let q = 0; q < QUESTIONS; q++) {
    const s = searchReaches(q, landscape);
    const r = randomReaches(q);
    search += +s;
    random += +r;
    searchOnly += +(s && !r);
    randomOnly += +(r && !s);
  }
  return { search, random, p: mcnemarExact(searchOnly, randomOnly) };
}

test('a reward that falls with distance from the answer: the informed search at its defaults clearly beats random routes', () => {
  assert.equal(informedDefaults.reward, 'gold-logprob');
  const { search, random, p } = duel(falling);
  // The 0/1 search: every wrong route scores 0 (exp(−∞) = 0).
  let zeroOne = 0;
  for (let q = 0; q < QUESTIONS; q++) zeroOne += +searchReaches(q, blind, { ...informedDefaults, reward: 'correct', rewardScale: undefined });
  assert.ok(search >= 5 * Math.max(random, zeroOne, 1) && p < 1e-6, `search ${search}, random ${random}, 0/1 search ${zeroOne} of ${QUESTIONS} (McNemar p ${p})`);
});

test('an uninformative reward: the same search does not beat random routes', () => {
  const { search, random, p } = duel(noise);
  const informed = duel(falling).search;
  assert.ok(!(search > random && p < 0.05) && 3 * search < informed, `search ${search} (${informed} on the falling landscape), random ${random} of ${QUESTIONS} (McNemar p ${p})`);
});
