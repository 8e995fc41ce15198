/**
 * Whether a run evaluates the shared global-route pool. The global-route selector picks the one
 * route with the best accuracy on a seeded selection half of the run's questions and scores it on
 * the held-out half; with a handful of questions each half is a few questions, the pick is noise
 * and the held-out rate means nothing, so the pool's generations (one per pool route per question)
 * would be spent for no number. Decided on the whole selection (a shard decides as its run does),
 * so every shard of a run and a resumed run agree.
 */

/** Fewest questions a run needs for global-route selection: ten in each half. */
export const MIN_GLOBAL_ROUTE_QUESTIONS = 20;

/** The sentence a run records (and shows) when it skips the pool; undefined when the pool applies. */
export function globalRouteSkipReason(questions: number): string | undefined {
  if (questions >= MIN_GLOBAL_ROUTE_QUESTIONS) return undefined;
  return `global-route selection skipped: it picks a route on half of the run's questions and scores it on the other half, which needs at least ${MIN_GLOBAL_ROUTE_QUESTIONS} questions (this run has ${questions})`;
}
