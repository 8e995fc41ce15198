/** Prompt presets: published few-shot exemplars and the warnings about them. Everything outside this folder reaches it through here. */
export { readMmluDevSplit } from './mmluDevSplit';
export { FEW_SHOT_PRESET_NAMES, PRESET_NAMES } from './presetNames';
export { presetWarnings } from './presetWarnings';
export { checkPresetFormat, presetDeployment } from './presets';
