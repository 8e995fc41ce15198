/** The deployment and the probes: prompts fitted to the context, budgets, random routes, the route search, answer-blind selectors. Everything outside this folder reaches it through here. */
export { chooseGlobalRoute, selectConfidence, selectMajority } from './blindSelectors';
export { addBudget, costOf, emptyBudget } from './budget';
export { PROMPT_TRUNCATIONS, fitQuestionPrompt } from './contextFit';
export { FITTED_PROMPT_TOKENS, FittedPrompts } from './fittedPrompts';
export { DEFAULT_DEPLOYMENT, QUESTION_SLOT, chatMessages, checkDeployment, deploymentRequest, isFewShotExample, promptIds, promptSource } from './deployment';
export { globalRouteSkipReason } from './globalRoutePlan';
export { PERTURBATION_POSITIONS, PERTURBATION_SCALE, drawPerturbation } from './perturbations';
export { rewardOfAttempt, scoreGoldAnswer, searchReward } from './goldAnswerScore';
export { DEFAULT_PROBE_DECODING, DEFAULT_SAMPLE_DECODING, LEGACY_PROBE_DECODING, checkSampleDecoding, decodingOf, routeDecodingRule } from './probeDecoding';
export { MAX_PROBE_BUDGET, checkProbeBudget, isRouteProbe, parseProbeSpecs, parseSelectors } from './probeSpec';
export { DEFAULT_SEARCH, RouteSearch } from './routeSearch';
export { drawQuestionRoutes, lengthBoundsOf, lengthBoundsProblem, routeLengthBounds, type LengthBounds } from './routes';
export { SearchSweep, sweepConstants, SWEEP_FACTORS, type RouteEvaluation } from './searchSweep';
