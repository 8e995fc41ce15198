/**
 * The engine's entry point: load a Hugging Face model folder and run it under layer routes and
 * silenced MLPs. Everything else in src/engine is reached through here.
 */
import { Model, type LoadOptions } from './model';

export { Model } from './model';
export { DEFAULT_MAX_BATCH } from './types';
export type { LoadOptions, ForwardOptions, ForwardItem } from './model';
export type { StepTiming } from './generationScheduler';
export type { BlockInspection } from './blockInspection';
export { InputError, RemoteServerError } from './errors';
export type * from './types';

/** Loads (building and caching the ONNX graphs on first use) the model in `dir`. */
export function loadModel(dir: string, options?: LoadOptions): Promise<Model> {
  return Model.load(dir, options);
}

export { checkRoute, checkSilenced, checkTokenIds } from './routeValidation';
export { contextProblem, checkContextLength, type ModelContext } from './contextLength';
export { readModelConfig, type ModelConfig } from './config';
export { ENGINE_VERSION } from './graphCache';
export { Xoshiro128 } from './sampling';
export { assertFolderFree, lockFolder, recoveredNote, type FolderLock } from './folderLock';
export { createFolder, describeFsError } from './folderCreation';
export { parseWeightPrecision, WEIGHT_PRECISIONS, type WeightPrecision } from './weightPrecision';
export { RemoteGenerator, checkBaseUrl, publicUrl, type RemoteOptions, type RemoteBackendInfo } from './remote/remoteGenerator';
export { EXTENSIONS_VERSION, LAYER_EXTENSIONS } from './remote/completionApi';
export { quoteValue } from './remote/quoteValue';
export type { CompletionRequestBody, CompletionResponseBody, CompletionChoice, HealthBody } from './remote/completionApi';
export { modelFloatBytes } from './memoryFootprint';
