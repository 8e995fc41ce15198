/**
 * The audit options as VS Code settings: `package.json`'s `contributes.configuration` is generated
 * from the options table (`tools/writeSettingsSchema.ts` writes it, a unit test fails when the two
 * differ), and the extension reads the settings back into options through the same table. An
 * option added to the table later becomes a setting without an edit here: it lands in the
 * "More options" group under its own name, typed by its kind, described by its `--help` text.
 * Options the table marks command-line only are left out until the engine process takes them.
 * The settings an untrusted workspace may not set (`capabilities.untrustedWorkspaces.
 * restrictedConfigurations`) are generated here too: the model folders and the cache, and the
 * backend and base URLs, so that a workspace's settings cannot send the stored server key to a
 * server of its choosing.
 *
 * No vscode import: the generator and its test run in plain Node.
 */
import type { KvPrecision, WeightPrecision } from '../engine/index';
import { ANSWER_FORMATS } from '../audit/dataset';
import { DEFAULT_DEPLOYMENT } from '../audit/probes';
import { PRESET_NAMES } from '../audit/presets';
import { PROMPT_TRUNCATIONS } from '../audit/probes';
import { CORRECT_BY, TRUNCATED_RULES } from '../audit/answers';
import { PROBE_NAMES, SEARCH_REWARDS, SELECTOR_NAMES } from '../contract';
import { AUDIT_OPTIONS, DEFAULT_PROBES, KV_FIDELITY, type AuditOptions, type OptionSpec } from './auditOptions';

export const SETTINGS_SECTION = 'reachAudit';

// The engine's list would load the runtime with it; the record's type makes a new precision a compile error here.
const WEIGHT_VALUES = Object.keys({ f32: true, int8: true } satisfies Record<WeightPrecision, true>);
const KV_CACHE_VALUES = Object.keys({ f32: true, f16: true } satisfies Record<KvPrecision, true>);

/** The groups of the settings UI (one `contributes.configuration` entry each), in display order. */
export const SETTING_GROUPS = [
  { id: 'model', title: 'Model and data' },
  { id: 'probes', title: 'Probes and budgets' },
  { id: 'search', title: 'Routes and search' },
  { id: 'repair', title: 'Repair scan' },
  { id: 'deployment', title: 'Deployment: prompt and decoding' },
  { id: 'grading', title: 'Grading' },
  { id: 'engine', title: 'Engine' },
  { id: 'remote', title: 'Remote servers' },
  { id: 'tables', title: 'Tables' },
  { id: 'more', title: 'More options' },
] as const;

export type SettingGroup = (typeof SETTING_GROUPS)[number]['id'];

/** A JSON-schema fragment as package.json holds it. */
export type SettingSchema = Record<string, unknown>;

/**
 * How one option is shown as a setting. Everything is optional: an option missing from
 * OPTION_SETTINGS gets the generic form (group "more", key = option name).
 */
interface OptionSettingForm {
  group: SettingGroup;
  /** The setting's name after `reachAudit.` when it is not the option's own (settings that predate the table keep theirs). */
  key?: string;
  /** Allowed values of a text option (an empty value: the option's default). */
  values?: readonly string[];
  /** Said before the `--help` text. */
  note?: string;
  /** Schema fields that differ from the generic ones for this kind (kept as users' settings have them). */
  schema?: SettingSchema;
  /** An untrusted workspace's value is ignored (VS Code reads the user's): restrictedConfigurations. */
  restricted?: true;
  /** A text option whose text is JSON: the setting holds the object itself (its old text form is still read). */
  jsonObject?: true;
  /** The setting's earlier name, still read when the new one is left at its default (users' settings.json keep it). */
  formerKey?: string;
}

/**
 * Options that are not settings, and where VS Code reaches them instead. An option of the table
 * that is neither here nor a setting cannot exist: the generator makes every other option one.
 */
export const OPTIONS_REACHED_OTHERWISE: Readonly<Partial<Record<keyof typeof AUDIT_OPTIONS, string>>> = {
  data: 'the dataset: the file open in the editor, the explorer\'s Run Reachability Audit, or the dataset pick',
  limit: 'Run Reachability Audit asks how many questions (all, first 20, first 100, first N)',
  ids: 'the per-question commands (Audit This Question and its neighbours) audit one question by id',
  out: 'the extension names each run\'s folder under .reach-audit/runs; All options… sets it for one run',
  name: 'All options… sets a run name for one run (the default is <model>-<dataset>)',
  resume: 'the Resume button of a stopped run',
  realizedFrom: 'Add Probes to This Log… (the Runs view\'s menu on an imported run, or its panel) audits a model on the outputs of an imported log',
  shard: 'scale-out across machines is the command line\'s; open the merged run with Open Run Folder…',
  apiKeyEnv: 'the server API key is kept in VS Code\'s secret storage (Reach Audit: Set Server API Key…), never in settings',
};

const OPTION_SETTINGS: Readonly<Partial<Record<keyof typeof AUDIT_OPTIONS, OptionSettingForm>>> = {
  format: { group: 'model', values: ANSWER_FORMATS, note: 'Empty: detected from the dataset\'s fields.' },
  field: { group: 'model' },
  split: { group: 'model' },
  pattern: { group: 'model' },
  probes: {
    group: 'probes',
    key: 'defaultProbes',
    note: 'Probes and their budgets (attempts per question), as `probe:budget`. The probes quick pick starts from these (or from your last pick in this workspace).',
    schema: {
      items: { type: 'string', pattern: `^(${PROBE_NAMES.join('|')})(:[1-9][0-9]*)?$`, patternErrorMessage: 'probe:budget, e.g. routes:16' },
      default: [...DEFAULT_PROBES],
    },
  },
  sampleTemperature: { group: 'probes', key: 'temperature', note: 'Sampling temperature of the `sample` probe. Empty (null): 1.0. The deployment and the route probes stay greedy.', schema: { exclusiveMinimum: 0 } },
  sampleTopP: { group: 'probes', note: 'Empty (null): 1.0.', schema: { exclusiveMinimum: 0, maximum: 1 } },
  select: {
    group: 'probes',
    key: 'selectors',
    note: 'Answer-blind selectors scored on each probe\'s attempts. Empty: majority, confidence and global-route (learned-route is asked for by name).',
    schema: { items: { type: 'string', enum: [...SELECTOR_NAMES] } },
  },
  globalRoutes: { group: 'probes' },
  routerFolds: { group: 'probes' },
  untilReached: { group: 'probes' },
  seed: { group: 'probes', note: 'Empty (null): the engine\'s default, so runs are reproducible either way.' },
  maxEdits: { group: 'search' },
  minRouteLength: { group: 'search' },
  maxRouteLength: { group: 'search' },
  searchC: { group: 'search' },
  searchLambda: { group: 'search' },
  searchRandomChild: { group: 'search' },
  searchWidening: { group: 'search' },
  searchPreset: { group: 'search', values: ['published'] },
  searchReward: { group: 'search', values: SEARCH_REWARDS },
  searchSweep: { group: 'search' },
  repair: { group: 'repair', note: 'On by default in VS Code.', schema: { default: true } },
  referenceProbes: { group: 'repair' },
  prompt: { group: 'deployment', values: ['chat', 'raw'] },
  preset: { group: 'deployment', values: PRESET_NAMES, note: 'Empty: the model\'s chat template.' },
  template: { group: 'deployment', note: 'Relative to the first workspace folder.' },
  system: { group: 'deployment' },
  fewshot: { group: 'deployment', note: 'Relative to the first workspace folder.' },
  fewshotFile: { group: 'deployment', note: 'Relative to the first workspace folder; sent only with the `mmlu-5shot` preset.' },
  maxNewTokens: { group: 'deployment', schema: { type: 'integer', default: DEFAULT_DEPLOYMENT.maxNewTokens } },
  temperature: { group: 'deployment', key: 'deploymentTemperature', note: 'The deployment\'s own temperature (`reachAudit.temperature` is the sample probe\'s).' },
  topP: { group: 'deployment', key: 'deploymentTopP' },
  stop: { group: 'deployment' },
  chatTemplateKwargs: { group: 'deployment', jsonObject: true, note: 'An object in settings.json, e.g. `{"enable_thinking": false}`; empty: none.', schema: { type: ['object', 'string'], default: {} } },
  truncatePrompt: { group: 'deployment', values: PROMPT_TRUNCATIONS },
  gradeTruncated: { group: 'grading', values: TRUNCATED_RULES },
  correctBy: { group: 'grading', values: CORRECT_BY },
  thinkingMarkers: { group: 'grading', note: 'Empty: the tokenizer\'s own thinking tokens, else `<think>,</think>`.' },
  // A folder the engine reads, like the model folders: not an untrusted workspace's to set.
  tokenizerFrom: { group: 'model', note: 'Relative to the first workspace folder; empty: the model folder\'s own tokenizer files.', restricted: true },
  weights: { group: 'engine', values: WEIGHT_VALUES },
  kvCache: { group: 'engine', values: KV_CACHE_VALUES },
  kvFidelityQuestions: { group: 'engine', schema: { maximum: KV_FIDELITY.mostQuestions } },
  batch: { group: 'engine' },
  maxBatch: { group: 'engine' },
  // VS Code titles a setting from its key: "maxKVCacheMemory" reads "Max KV Cache Memory" ("kvMemory" read "Kv Memory").
  kvMemory: { group: 'engine', key: 'maxKVCacheMemory', formerKey: 'kvMemory' },
  threads: { group: 'engine', note: '0: the engine picks.', schema: { type: 'integer', minimum: 0, default: 0 } },
  // A path on the machine the engine runs on: in a remote window VS Code lists such settings in the Remote tab, not the User tab.
  cacheDir: {
    group: 'engine',
    key: 'cacheFolder',
    note: 'A folder on the machine the engine runs on: in a remote window (code-server, SSH, WSL, a container) this setting is in the **Remote** tab of the Settings editor (or the workspace\'s), not the User tab, whose settings belong to the machine VS Code is shown on.',
    schema: { scope: 'machine-overridable' },
    restricted: true,
  },
  backend: {
    group: 'remote',
    values: ['local', 'openai'],
    note: '`openai`: the servers of `reachAudit.baseUrls` generate, the extension\'s engine process only renders prompts and grades. A key they need is set with **Reach Audit: Set Server API Key…** and kept in VS Code\'s secret storage, never in settings. Ignored in an untrusted workspace\'s settings.',
    restricted: true,
  },
  baseUrl: {
    group: 'remote',
    key: 'baseUrls',
    note: 'Used with `reachAudit.backend` openai; ignored in an untrusted workspace\'s settings (the stored key is sent to these servers).',
    schema: { items: { type: 'string', pattern: '^https?://', patternErrorMessage: 'an http:// or https:// server URL, e.g. http://127.0.0.1:8000/v1' } },
    restricted: true,
  },
  apiModel: { group: 'remote', note: 'Used with `reachAudit.backend` openai.' },
  concurrency: { group: 'remote', note: 'Used with `reachAudit.backend` openai.' },
  timeout: { group: 'remote', note: 'Used with `reachAudit.backend` openai.' },
  maxRetries: { group: 'remote', note: 'Used with `reachAudit.backend` openai.' },
};

/** The extension's own settings, not audit options (model folders are picked per command; the margin is the Tables page's). */
const EXTENSION_SETTINGS: readonly { key: string; group: SettingGroup; schema: SettingSchema; restricted?: true }[] = [
  {
    key: 'modelPath',
    group: 'model',
    restricted: true,
    schema: {
      type: 'string',
      default: '',
      scope: 'resource',
      markdownDescription:
        'Model folder to audit (a Hugging Face folder with `config.json`, tokenizer files and `*.safetensors`). Relative paths are relative to the workspace folder. The folder last picked in this workspace (**Reach Audit: Select Model**, or the folder picker) comes first, and a notice names it when a run reuses it; with neither, a folder picker asks.',
    },
  },
  { key: 'baseModelPath', group: 'model', restricted: true, schema: { type: 'string', default: '', scope: 'resource', markdownDescription: 'Base checkpoint folder for **Reach Audit: Compare Checkpoints**. The folder last picked for it in this workspace comes first (a notice names it, with Pick Another…); with neither, a folder picker asks.' } },
  { key: 'tunedModelPath', group: 'model', restricted: true, schema: { type: 'string', default: '', scope: 'resource', markdownDescription: 'Trained checkpoint folder for **Reach Audit: Compare Checkpoints**. The folder last picked for it in this workspace comes first (a notice names it, with Pick Another…); with neither, a folder picker asks.' } },
  {
    key: 'keepRunningOnReload',
    group: 'engine',
    schema: {
      type: 'boolean',
      default: false,
      markdownDescription:
        'Run **Run Reachability Audit** and **Resume Run** as a `reach-audit audit` process of their own (the same options, `--out` the run folder, its output in the folder\'s `.reach-audit-cli.log`), so a window reload does not stop them: the next window follows the run again (panel, progress, Cancel). Off: the run goes in the extension\'s engine process, which ends with the window (the next window offers Resume); that way keeps the loaded model between runs and shows the plan\'s estimate with Cancel and the live tokens/s.',
    },
  },
  {
    key: 'equivalenceMargin',
    group: 'tables',
    schema: {
      type: 'number',
      minimum: 0.1,
      maximum: 50,
      default: 5,
      markdownDescription:
        'Equivalence margin of the verdicts on the Tables page, in percentage points (as `reach-audit table --margin`): a paired difference is *equivalent* only when its 95% interval lies inside ±margin; otherwise it is *better*, *worse* or *inconclusive*.',
    },
  },
];

/** One option shown as a setting. */
export interface OptionSetting {
  /** The option's field name (AuditOptions key). */
  option: string;
  /** The setting's name after `reachAudit.`. */
  key: string;
  group: SettingGroup;
  spec: OptionSpec;
  values?: readonly string[];
}

type OptionTable = Readonly<Record<string, OptionSpec>>;

/** Every option of the table that is a setting, in the table's order. */
export function optionSettings(table: OptionTable = AUDIT_OPTIONS): OptionSetting[] {
  const forms = OPTION_SETTINGS as Readonly<Record<string, OptionSettingForm | undefined>>;
  const otherwise = OPTIONS_REACHED_OTHERWISE as Readonly<Record<string, string | undefined>>;
  return Object.entries(table)
    // A command-line-only option (a shard) is not one the engine process takes from VS Code; it becomes a setting when the table stops marking it so.
    .filter(([name, spec]) => otherwise[name] === undefined && !spec.cliOnly)
    .map(([name, spec]) => {
      const form = forms[name];
      return { option: name, key: form?.key ?? name, group: form?.group ?? 'more', spec, ...(form?.values ? { values: form.values } : {}) };
    });
}

/** Markdown of a `--help` text: its line breaks are the terminal's, and outside code spans its punctuation is literal. */
function markdownOfHelp(help: string): string {
  return help
    .split('\n')
    .join(' ')
    .split('`')
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/([\\*_<>[\]#|])/g, '\\$1')))
    .join('`');
}

function schemaOf(setting: OptionSetting, table: OptionTable): SettingSchema {
  const { spec } = setting;
  const form = (OPTION_SETTINGS as Readonly<Record<string, OptionSettingForm | undefined>>)[setting.option];
  // Written for people: what the setting does, not the command line's flag (the flags are in --help).
  const help = markdownOfHelp(spec.help);
  const description = [form?.note, `${help.charAt(0).toUpperCase()}${help.slice(1)}`].filter((s) => s !== undefined).join(' ');
  let schema: SettingSchema;
  switch (spec.kind) {
    case 'boolean':
      schema = { type: 'boolean', default: false };
      break;
    case 'number':
      schema = { type: ['number', 'null'], default: null };
      break;
    case 'wholeNumber':
      schema = { type: ['integer', 'null'], minimum: spec.min ?? 0, default: null };
      break;
    case 'strings':
      schema = { type: 'array', items: { type: 'string' }, default: [] };
      break;
    case 'string':
      schema = setting.values
        ? { type: 'string', enum: ['', ...setting.values], enumItemLabels: ['(default)', ...setting.values], default: '' }
        : { type: 'string', default: '' };
      break;
  }
  if (spec.path) schema.scope = 'resource';
  // The order within the group follows the table's (the settings UI sorts by it).
  const order = optionSettings(table).filter((s) => s.group === setting.group).findIndex((s) => s.key === setting.key);
  return { ...schema, ...form?.schema, order: order + (setting.group === 'model' ? EXTENSION_SETTINGS.filter((e) => e.group === 'model').length : 0), markdownDescription: description };
}

/** `contributes.configuration` for package.json: one entry per group of the settings UI, empty groups left out. */
export function configurationContribution(table: OptionTable = AUDIT_OPTIONS): SettingSchema[] {
  const settings = optionSettings(table);
  const seen = new Set<string>();
  for (const key of [...EXTENSION_SETTINGS.map((e) => e.key), ...settings.map((s) => s.key)]) {
    if (seen.has(key)) throw new Error(`two settings named ${SETTINGS_SECTION}.${key}: give one a key in OPTION_SETTINGS`);
    seen.add(key);
  }
  return SETTING_GROUPS.flatMap((g, groupIndex) => {
    const properties: Record<string, SettingSchema> = {};
    EXTENSION_SETTINGS.filter((e) => e.group === g.id).forEach((e, i) => (properties[`${SETTINGS_SECTION}.${e.key}`] = { ...e.schema, order: i }));
    for (const s of settings.filter((s) => s.group === g.id)) properties[`${SETTINGS_SECTION}.${s.key}`] = schemaOf(s, table);
    if (Object.keys(properties).length === 0) return [];
    return [{ id: `${SETTINGS_SECTION}.${g.id}`, title: g.title, order: groupIndex, properties }];
  });
}

/**
 * `capabilities.untrustedWorkspaces.restrictedConfigurations` for package.json: the settings whose
 * workspace value an untrusted workspace may not give (the extension's own first, then the table's).
 */
export function restrictedSettings(table: OptionTable = AUDIT_OPTIONS): string[] {
  const forms = OPTION_SETTINGS as Readonly<Record<string, OptionSettingForm | undefined>>;
  return [
    ...EXTENSION_SETTINGS.filter((e) => e.restricted).map((e) => e.key),
    ...optionSettings(table).filter((s) => forms[s.option]?.restricted).map((s) => s.key),
  ].map((key) => `${SETTINGS_SECTION}.${key}`);
}

/** The option a setting's value stands for; undefined when the value means "the default". */
function valueOf(spec: OptionSpec, raw: unknown, resolvePath: (p: string) => string): unknown {
  if (raw === undefined || raw === null) return undefined;
  switch (spec.kind) {
    case 'boolean':
      return typeof raw === 'boolean' ? raw : new TypeError('expected true or false');
    case 'number':
    case 'wholeNumber':
      return typeof raw === 'number' && Number.isFinite(raw) ? raw : new TypeError('expected a number');
    case 'strings':
      if (!Array.isArray(raw) || !raw.every((v) => typeof v === 'string')) return new TypeError('expected a list of text values');
      return raw.length === 0 ? undefined : raw.map((v: string) => v.trim()).filter((v) => v !== '');
    case 'string': {
      if (typeof raw !== 'string') return new TypeError('expected text');
      const t = raw.trim();
      if (t === '') return undefined;
      return spec.path ? resolvePath(t) : t;
    }
  }
}

export interface SettingsReading {
  /** The options the settings set (a value left at "the default" is absent). */
  options: AuditOptions;
  /** Settings whose value has the wrong type, as `reachAudit.key: what was expected`. */
  problems: string[];
}

/**
 * The options the settings hold. `get` reads one setting by its name after `reachAudit.`;
 * `resolvePath` makes a relative file setting absolute (the workspace folder's).
 */
export function optionsFromSettings(get: (key: string) => unknown, resolvePath: (p: string) => string, table: OptionTable = AUDIT_OPTIONS): SettingsReading {
  const options: Record<string, unknown> = {};
  const problems: string[] = [];
  const forms = OPTION_SETTINGS as Readonly<Record<string, OptionSettingForm | undefined>>;
  for (const s of optionSettings(table)) {
    let raw = get(s.key);
    const former = forms[s.option]?.formerKey;
    if (former !== undefined && (raw === undefined || raw === null || raw === '')) raw = get(former) ?? raw;
    // An object where the option takes JSON text: the object, as the text the option reads.
    if (forms[s.option]?.jsonObject && typeof raw === 'object' && raw !== null && !Array.isArray(raw)) raw = Object.keys(raw).length === 0 ? undefined : JSON.stringify(raw);
    const v = valueOf(s.spec, raw, resolvePath);
    if (v instanceof TypeError) problems.push(`${SETTINGS_SECTION}.${s.key}: ${v.message}`);
    else if (v !== undefined) options[s.option] = v;
  }
  // Kept from before the table: threads 0 means "the engine picks", which is the option left out.
  if (options.threads === 0) delete options.threads;
  return { options: options as AuditOptions, problems };
}

/** The setting an option is kept in (for messages and the All options… pick); undefined when it is not a setting. */
export function settingKeyOf(option: string, table: OptionTable = AUDIT_OPTIONS): string | undefined {
  return optionSettings(table).find((s) => s.option === option)?.key;
}
