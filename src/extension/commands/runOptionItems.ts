/**
 * The last step of Run Reachability Audit and of Compare Checkpoints: the options of the run (of
 * both runs of a comparison), as pure item lists and a
 * parser (auditChoices.ts shows them). The common choices are items of their own (preset, weights,
 * backend, token budget, seed); "All options…" lists every other audit option of the table with its value,
 * so anything the command line can set, one run can set here. Values set here are for this run only
 * (the token budget is remembered for the next run, and says so); the settings hold the defaults.
 */
import { AUDIT_OPTIONS, optionsFromFlags, type AuditOptions, type OptionSpec } from '../../service';
import { OPTIONS_REACHED_OTHERWISE, optionSettings } from '../../service';

/** Options this step never offers: they were picked before it, or VS Code decides them (see OPTIONS_REACHED_OTHERWISE). */
const PICKED_BEFORE = new Set(['data', 'probes', 'select', 'limit', 'ids', 'resume', 'shard', 'apiKeyEnv']);

/** The common choices, in the order shown. */
export const COMMON_OPTIONS = ['preset', 'weights', 'backend', 'maxNewTokens', 'seed'] as const;

export interface RunOptionItem {
  label: string;
  description?: string;
  detail?: string;
  /** The option this item edits; absent on Start and All options…. */
  option?: string;
  start?: true;
  all?: true;
}

type Table = Readonly<Record<string, OptionSpec>>;

/** The value as the command line would write it (undefined: the default). */
export function valueText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.join(',');
  return String(value);
}

/** The allowed values of a text option, when the table's settings name them. */
export function choicesOf(option: string, table: Table = AUDIT_OPTIONS): readonly string[] | undefined {
  return optionSettings(table).find((s) => s.option === option)?.values;
}

/**
 * What this run will use instead of the option's value, when the value is not used: with
 * --backend openai the servers generate with their own weights, so --weights is not used (the
 * manifest records the local engine's f32, which only renders prompts and grades).
 */
export function unusedValueNote(option: string, current: AuditOptions): string | undefined {
  if (option === 'weights' && current.backend === 'openai') return "the servers' own (backend openai: --weights is not used)";
  return undefined;
}

/** Options a run remembers for the next one (workspace state), because they are set per run rather than in the settings. */
export const REMEMBERED_OPTIONS = ['maxNewTokens'] as const;

/** The options of `changed` that the next run starts from; an option set back to its default is forgotten (undefined). */
export function rememberedOf(changed: AuditOptions): Partial<Record<(typeof REMEMBERED_OPTIONS)[number], unknown>> {
  return Object.fromEntries(REMEMBERED_OPTIONS.map((o) => [o, (changed as Record<string, unknown>)[o]]));
}

function itemOf(option: string, spec: OptionSpec, current: AuditOptions, remembered: ReadonlySet<string> = new Set()): RunOptionItem {
  const shown = valueText((current as Record<string, unknown>)[option]);
  const unused = unusedValueNote(option, current);
  const value = shown === undefined ? 'default' : remembered.has(option) ? `${shown} (as the last run)` : shown;
  return {
    label: `--${spec.flag}`,
    description: unused ?? value,
    detail: spec.help.split('\n')[0],
    option,
  };
}

/** What the step starts: one audit, a comparison (its base and tuned runs under the same options), or a trajectory (every checkpoint under them). */
export type RunKind = 'audit' | 'comparison' | 'trajectory';

/** Start, the common choices, All options…. */
export function runOptionItems(current: AuditOptions, table: Table = AUDIT_OPTIONS, kind: RunKind = 'audit', remembered: ReadonlySet<string> = new Set()): RunOptionItem[] {
  const common = COMMON_OPTIONS.filter((o) => table[o] !== undefined).map((o) => itemOf(o, table[o], current, remembered));
  return [
    kind === 'audit'
      ? { label: '$(play) Start the audit', description: 'with the options below', start: true }
      : kind === 'trajectory'
        ? { label: '$(play) Start the audits', description: 'every checkpoint with the options below', start: true }
        : { label: '$(play) Start the comparison', description: 'both runs with the options below', start: true },
    ...common,
    { label: '$(settings) All options…', description: 'every audit option for this run', all: true },
  ];
}

/** Every option one run can set here (the table's, less those picked before or decided by VS Code), in the table's order. */
export function allOptionItems(current: AuditOptions, table: Table = AUDIT_OPTIONS): RunOptionItem[] {
  const otherwise = OPTIONS_REACHED_OTHERWISE as Readonly<Record<string, string | undefined>>;
  return Object.entries(table)
    .filter(([name, spec]) => !PICKED_BEFORE.has(name) && !spec.cliOnly && (otherwise[name] === undefined || name === 'name' || name === 'out'))
    .map(([name, spec]) => itemOf(name, spec, current));
}

/**
 * Text typed for an option → its value, through the command line's own parser, so the same
 * value is refused with the same words; '' means the default. Repeated flags take a comma-separated list.
 */
export function parseOptionText(option: string, text: string, table: Table = AUDIT_OPTIONS): { value: unknown } | { problem: string } {
  const spec = table[option];
  if (spec === undefined) return { problem: `unknown option ${option}` };
  const t = text.trim();
  if (t === '') return { value: undefined };
  if (spec.kind === 'boolean') {
    if (t === 'true' || t === 'on' || t === 'yes') return { value: true };
    if (t === 'false' || t === 'off' || t === 'no') return { value: false };
    return { problem: `--${spec.flag}: expected on or off` };
  }
  const given = spec.repeated ? t.split(',').map((s) => s.trim()).filter((s) => s !== '') : t;
  const allowed = choicesOf(option, table);
  if (allowed && typeof given === 'string' && !allowed.includes(given)) return { problem: `--${spec.flag}: expected ${allowed.join(', ')}` };
  try {
    // Only this option's entry is given, so the parser converts and range-checks this value alone.
    const parsed = optionsFromFlags({ [spec.flag]: given } as Parameters<typeof optionsFromFlags>[0]) as Record<string, unknown>;
    return { value: parsed[option] };
  } catch (err) {
    return { problem: (err as Error).message };
  }
}

/** What an option's box takes, by its kind: only a list takes several values. */
export function valuePrompt(spec: OptionSpec | undefined): string {
  switch (spec?.kind) {
    case 'strings':
      return 'Several values: separated by commas.';
    case 'wholeNumber':
      return spec.min !== undefined ? `A whole number, ${spec.min} or more.` : 'A whole number.';
    case 'number':
      return 'A number.';
    default:
      return 'One value.';
  }
}
