/**
 * The run settings of grading (docs/design/grading.md) and their defaults, apart from the grader
 * itself, so that what only names the settings (the extension's option text) does not pull in
 * the grader and its computer-algebra library.
 */
import type { CorrectBy, GradingSettings, TruncatedRule } from '../../contract';

export const CORRECT_BY: readonly CorrectBy[] = ['stated', 'strict', 'flexible'];

export const TRUNCATED_RULES: readonly TruncatedRule[] = ['strict', 'lenient'];

export const DEFAULT_GRADING: GradingSettings = { correctBy: 'stated', truncated: 'strict' };
