/** The few-shot prompt presets by name (presets.ts defines them), for messages and flag checks. */
export type PresetName = 'gsm8k-cot-8shot' | 'math-minerva-4shot' | 'arc-5shot' | 'mmlu-5shot';

export const PRESET_NAMES: readonly PresetName[] = ['gsm8k-cot-8shot', 'math-minerva-4shot', 'arc-5shot', 'mmlu-5shot'];
