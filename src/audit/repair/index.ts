/** The failure set and the MLP repair scan with its random-block null. Everything outside this folder reaches it through here. */
export { inFailureSet } from './failureSet';
export { analyzeRepair } from './repairScan';
export { splitBySeededKey } from './seededSplit';
