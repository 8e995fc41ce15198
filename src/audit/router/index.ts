/** The learned, answer-blind router: its features, its folds, its models and the cross-fitting. Everything outside this folder reaches it through here. */
export { DEFAULT_ROUTER_FOLDS, ROUTER_FEATURE_DIMS, checkRouterFolds, foldOf, promptFeatures } from './promptFeatures';
export { ROUTER_PROJECTION_SEED, ROUTER_STATE_DIMS, checkStateBlock, defaultStateBlock, projectPooledState } from './pooledStateFeatures';
export { DEFAULT_ROUTER_MODEL, KNN_ROUTER_MODEL, fitRouter, routerModelText, type Router, type RouterModel, type RouterRow } from './routeRouter';
export { crossFit, shuffledLabels, type CrossFitChoices, type FoldRow, type RouterFitter } from './crossFit';
