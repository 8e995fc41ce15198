/** The few-shot prompt presets by name (presets.ts defines them), for messages and flag checks. */
export type FewShotPresetName = 'gsm8k-cot-8shot' | 'math-minerva-4shot' | 'arc-5shot' | 'mmlu-5shot';

/** Every preset: the few-shot ones, and the reasoning models' chat presets (reasoningPresets.ts). */
export type PresetName = FewShotPresetName | 'deepseek-r1';

export const FEW_SHOT_PRESET_NAMES: readonly FewShotPresetName[] = ['gsm8k-cot-8shot', 'math-minerva-4shot', 'arc-5shot', 'mmlu-5shot'];

export const PRESET_NAMES: readonly PresetName[] = [...FEW_SHOT_PRESET_NAMES, 'deepseek-r1'];
