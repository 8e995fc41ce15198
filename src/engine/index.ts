/**
 * The engine's entry point: load a Hugging Face model folder and run it under layer routes and
 * silenced MLPs. Everything else in src/engine is reached through here.
 */
import { Model, type LoadOptions } from './model';

export { Model } from './model';
export type { LoadOptions, ForwardOptions, ForwardItem } from './model';
export type { StepTiming, SchedulerProfile } from './decode/generationScheduler';
export { DEFAULT_MAX_BATCH, InputError, RemoteServerError, assertFolderFree, lockFolder, recoveredNote, type FolderLock, createFolder, describeFsError } from '../common';
export type { BlockInspection } from './decode/blockInspection';
export type * from './types';

/** Loads (building and caching the ONNX graphs on first use) the model in `dir`. */
export function loadModel(dir: string, options?: LoadOptions): Promise<Model> {
  return Model.load(dir, options);
}

export { checkRoute, checkSilenced, checkTokenIds } from './decode/routeValidation';
export { contextProblem, checkContextLength } from './text/contextLength';
export { keptAddedTokens } from './text/keptAddedTokens';
export { parseTemplateDate, todayForTemplates, TEST_CLOCK_ENV } from './text/templateDate';
export { tokenizerFolder } from './text/tokenizerFolder';
export { nestedRepetition } from './text/patternRepetition';
export { TOKENIZER_FILE, TOKENIZER_CONFIG_FILE, CHAT_TEMPLATE_FILE } from './text/tokenizer';
export { CONFIG_FILE, readModelConfig, type ModelConfig } from './checkpoint/config';
export { openWeights, SINGLE_WEIGHTS_FILE, WEIGHTS_INDEX_FILE } from './checkpoint/safetensors';
export { ENGINE_VERSION } from './graphs/graphCache';
export { numericsPlatform } from './platform/numericsPlatform';
export { Xoshiro128 } from './sampling/sampling';
export { MAX_TOKEN_RECORD_K, tokenStep } from './sampling/tokenRecord';
export { parseWeightPrecision, WEIGHT_PRECISIONS, type WeightPrecision } from './checkpoint/weightPrecision';
export { RemoteGenerator, checkBaseUrl, publicUrl, type RemoteOptions } from './remote/remoteGenerator';
export { checkApiKey } from './remote/remoteErrors';
export { EXTENSIONS_VERSION, LAYER_EXTENSIONS, PERTURBATION_EXTENSION, TOKEN_RECORD_EXTENSION, CONTINUES_EXTENSION } from './remote/completionApi';
export { MAX_PERTURBATION_SCALE, perturbationDirection } from './decode/residualPerturbation';
export { quoteValue } from './remote/quoteValue';
export type { CompletionRequestBody, CompletionResponseBody, CompletionChoice, HealthBody } from './remote/completionApi';
export { loadedWeightBytes, modelFloatBytes } from './checkpoint/memoryFootprint';
export { sequenceKvNeed, type KvNeed } from './decode/kvMemory';
export { parseKvPrecision, KV_PRECISIONS, kvBytesPerValue, type KvPrecision } from './decode/kvPrecision';
export { NonFiniteActivations } from './decode/nonFiniteActivations';
