/**
 * What an audit runs on: the dataset, the model folder(s) and the probes with their budgets.
 * Defaults come from the active editor and the settings; quick picks fill the gaps, and the
 * user's picks are remembered per workspace (workspaceState) as the next run's defaults.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { DEFAULT_PROBES } from '../../service';
import { probeItems } from './probeFamilies';
import { countJsonLines, limitItems, limitProblem, routeBudgetOf, selectorItems } from './auditScope';
import { AUDIT_OPTIONS, type AuditOptions, type OptionSpec } from '../../service';
import { reusedModelNote, type ModelRole } from './reusedModelNote';
import { ReusedModelNotices } from './reusedModelNotices';
import { modelPickItems } from './modelPickItems';
import { allOptionItems, choicesOf, parseOptionText, rememberedOf, runOptionItems, valuePrompt, valueText, type RunKind, type RunOptionItem } from './runOptionItems';

const MODEL_KEY = 'reachAudit.model';
const BASE_KEY = 'reachAudit.baseModel';
const TUNED_KEY = 'reachAudit.tunedModel';
const PROBES_KEY = 'reachAudit.probes';
const DATASET_KEY = 'reachAudit.dataset';
const LIMIT_KEY = 'reachAudit.limit';
const SELECTORS_KEY = 'reachAudit.selectors';
/** The options of the options step that the next run starts from (REMEMBERED_OPTIONS). */
const RUN_OPTIONS_KEY = 'reachAudit.runOptions';

const KEY_OF: Record<ModelRole, string> = { model: MODEL_KEY, base: BASE_KEY, tuned: TUNED_KEY };

/**
 * Every step's picker stays open when the focus moves: a picker opened as the previous one closes,
 * or beside a notice, a panel or an editor that takes the focus, would otherwise close by itself
 * and end the command with no word.
 */
const STAYS_OPEN = { ignoreFocusOut: true } as const;

/** A dataset file the engine reads. */
export function isDatasetFile(uri: vscode.Uri | undefined): uri is vscode.Uri {
  return isFileEnding(uri, /\.(jsonl|json)$/i);
}

/** A benchmark the audit reads: a text dataset, or a .parquet file (no lines to put a cursor on, so no per-question commands). */
export function isBenchmarkFile(uri: vscode.Uri | undefined): uri is vscode.Uri {
  return isFileEnding(uri, /\.(jsonl|json|parquet)$/i);
}

/** A file on disk named so, outside the runs' own folder. */
function isFileEnding(uri: vscode.Uri | undefined, name: RegExp): uri is vscode.Uri {
  return uri !== undefined && uri.scheme === 'file' && name.test(uri.fsPath) && !uri.fsPath.includes(`${path.sep}.reach-audit${path.sep}`);
}

export class AuditChoices {
  private readonly notices = new ReusedModelNotices();

  /** `demoDir`: the extension's media/demo, whose base and tuned models the model picker offers. */
  constructor(private readonly state: vscode.Memento, private readonly demoDir?: string) {}

  rememberedModel(role: ModelRole): string | undefined {
    return this.state.get<string>(KEY_OF[role]);
  }

  async rememberModel(role: ModelRole, folder: string): Promise<void> {
    await this.state.update(KEY_OF[role], folder);
  }

  rememberedProbes(): string[] | undefined {
    return this.state.get<string[]>(PROBES_KEY);
  }

  /** The active editor's dataset file, else a pick among the workspace's .jsonl/.json/.parquet files (`placeHolder`: what the file is for). */
  async dataset(placeHolder = 'The benchmark file to audit (GSM8K, MATH, ARC, MMLU: JSON lines, JSON or parquet)'): Promise<string | undefined> {
    const active = vscode.window.activeTextEditor?.document.uri;
    if (isDatasetFile(active)) return active.fsPath;
    // Not a model folder's files (config, tokenizer, shard index) nor a run's: they are no benchmark.
    const found = await vscode.workspace.findFiles('**/*.{jsonl,json,parquet}', '{**/node_modules/**,**/.reach-audit/**,**/.vscode/**,**/package*.json,**/tsconfig*.json,**/config.json,**/generation_config.json,**/tokenizer.json,**/tokenizer_config.json,**/special_tokens_map.json,**/*.safetensors.index.json,**/trajectory.json,**/manifest.json,**/summary.json,**/comparison.json}', 500);
    const last = this.state.get<string>(DATASET_KEY);
    const items: (vscode.QuickPickItem & { file?: string })[] = found
      .map((uri) => ({ label: vscode.workspace.asRelativePath(uri), file: uri.fsPath }))
      .sort((a, b) => (a.file === last ? -1 : b.file === last ? 1 : a.label.localeCompare(b.label)));
    items.push({ label: '$(folder-opened) Browse…', description: 'a dataset file outside the list' });
    const pick = await vscode.window.showQuickPick(items, { ...STAYS_OPEN, title: 'Reach Audit: dataset', placeHolder });
    if (!pick) return undefined;
    let file = pick.file;
    if (!file) {
      const chosen = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { Datasets: ['jsonl', 'json', 'parquet'] }, title: 'Dataset file' });
      file = chosen?.[0]?.fsPath;
    }
    if (file) await this.state.update(DATASET_KEY, file);
    return file;
  }

  /**
   * A model folder: the remembered pick, else the setting, else a folder picker. `remote`: the
   * generations run on servers (the folder only lends its tokenizer), so no notice names it.
   */
  async model(role: ModelRole, fromSettings: string | undefined, remote = false): Promise<string | undefined> {
    const remembered = this.rememberedModel(role);
    if (remembered === undefined) return fromSettings ?? this.pickModel(role);
    // No picker asks: say which folder is reused and why (once a session), with a way to pick another.
    if (!this.notices.take(role, remembered, remote)) return remembered;
    const another = role === 'model' ? 'Select Model…' : 'Pick Another…';
    void vscode.window.showInformationMessage(reusedModelNote(role, remembered, fromSettings), another).then((button) => {
      if (button === another) void this.pickModel(role);
    });
    return remembered;
  }

  /**
   * Asks for a model folder (a Hugging Face folder with config.json and safetensors): the last pick,
   * the bundled demo pair or Browse…; remembers it. `what`: the picker's title, where it asks for a particular model.
   */
  async pickModel(role: ModelRole, what = role === 'model' ? 'Model folder' : role === 'base' ? 'Base checkpoint folder' : 'Trained checkpoint folder'): Promise<string | undefined> {
    const demo = this.demoDir !== undefined && fs.existsSync(path.join(this.demoDir, 'base', 'config.json')) ? this.demoDir : undefined;
    const pick = await vscode.window.showQuickPick(modelPickItems(role, demo, this.rememberedModel(role)), { ...STAYS_OPEN, title: `Reach Audit: ${what.charAt(0).toLowerCase()}${what.slice(1)}`, placeHolder: 'The model to audit: the bundled demo, or a folder of your own (Browse…)', matchOnDetail: true });
    if (!pick) return undefined;
    if (pick.folder !== undefined) {
      await this.rememberModel(role, pick.folder);
      this.notices.take(role, pick.folder, false);
      return pick.folder;
    }
    const chosen = await vscode.window.showOpenDialog({
      canSelectFiles: false,
      canSelectFolders: true,
      canSelectMany: false,
      title: `Reach Audit: ${what} (config.json, tokenizer and *.safetensors)`,
      openLabel: 'Use This Model',
      defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
    });
    const folder = chosen?.[0]?.fsPath;
    if (folder) {
      await this.rememberModel(role, folder);
      // Just picked: no notice naming it on the next command.
      this.notices.take(role, folder, false);
    }
    return folder;
  }

  /** Probes and one budget for all of them, preselected from the last run or the settings. */
  async probes(fromSettings: string[]): Promise<string[] | undefined> {
    const current = this.rememberedProbes() ?? fromSettings ?? DEFAULT_PROBES;
    const budgetOf = new Map(current.map((p) => [p.split(':')[0], p.split(':')[1] ?? '16']));
    const picks = await vscode.window.showQuickPick(probeItems(current), { ...STAYS_OPEN, canPickMany: true, title: 'Reach Audit: probes', placeHolder: 'Which probes try to reach the right answer' });
    if (!picks || picks.length === 0) return undefined;
    const first = budgetOf.get(picks[0].label) ?? '16';
    const budget = await vscode.window.showInputBox({
      ...STAYS_OPEN,
      title: 'Reach Audit: budget per probe',
      prompt: 'Attempts per question for each probe',
      value: first,
      validateInput: (v) => (/^[1-9]\d{0,4}$/.test(v.trim()) ? undefined : 'A whole number of attempts, 1 or more'),
    });
    if (budget === undefined) return undefined;
    const probes = picks.map((p) => `${p.label}:${budget.trim()}`);
    await this.state.update(PROBES_KEY, probes);
    return probes;
  }

  /**
   * How many questions: all of the file or the first N (the CLI's --limit). Resolves to
   * `{ limit }` (undefined limit: all), or undefined when dismissed.
   */
  async limit(file: string): Promise<{ limit?: number } | undefined> {
    let total: number | undefined;
    try {
      total = countJsonLines(await fs.promises.readFile(file, 'utf8'), file);
    } catch {
      total = undefined; // the engine reports an unreadable file; the picker still offers first N
    }
    const last = this.state.get<number>(LIMIT_KEY);
    const pick = await vscode.window.showQuickPick(limitItems(total, last), { ...STAYS_OPEN, title: `Reach Audit: questions of ${path.basename(file)}`, placeHolder: 'Audit the whole file, or its first N questions' });
    if (!pick) return undefined;
    let limit = pick.limit;
    if (pick.custom) {
      const typed = await vscode.window.showInputBox({ ...STAYS_OPEN, title: 'Reach Audit: first N questions', prompt: 'How many questions, from the top of the file', value: String(last ?? 20), validateInput: (v) => limitProblem(v, total) });
      if (typed === undefined) return undefined;
      limit = Number(typed.trim());
    }
    await this.state.update(LIMIT_KEY, limit);
    return { limit };
  }

  /** The answer-blind selectors, with what global-route costs; undefined when dismissed. */
  async selectors(probes: readonly string[], fromSettings: string[] | undefined): Promise<string[] | undefined> {
    const items = selectorItems(this.state.get<string[]>(SELECTORS_KEY) ?? fromSettings, routeBudgetOf(probes));
    const picks = await vscode.window.showQuickPick(items, { ...STAYS_OPEN, canPickMany: true, title: 'Reach Audit: answer-blind selection', placeHolder: 'Which selectors pick an answer without seeing the gold one (none: skip)' });
    if (!picks) return undefined;
    const chosen = picks.map((p) => p.label);
    await this.state.update(SELECTORS_KEY, chosen);
    return chosen;
  }

  /**
   * The options of this run: Start, the common choices, All options…. `base` is what the settings
   * and earlier picks give; resolves to the options changed here (for this run only), or undefined
   * when dismissed.
   */
  async runOptions(base: AuditOptions, kind: RunKind = 'audit'): Promise<AuditOptions | undefined> {
    // The token budget set for the last run is this one's too (until set back to the default).
    const lastRun = Object.entries(this.state.get<Record<string, unknown>>(RUN_OPTIONS_KEY) ?? {}).filter(([, v]) => v !== undefined && v !== null);
    const changed: Record<string, unknown> = Object.fromEntries(lastRun);
    const current = (): AuditOptions => ({ ...base, ...changed }) as AuditOptions;
    const these = kind === 'audit' ? 'this run' : kind === 'trajectory' ? 'every checkpoint' : 'both runs';
    for (;;) {
      const remembered = new Set(lastRun.filter(([o, v]) => changed[o] === v).map(([o]) => o));
      const pick = await vscode.window.showQuickPick(runOptionItems(current(), AUDIT_OPTIONS, kind, remembered), { ...STAYS_OPEN, title: `Reach Audit: options of ${these}`, placeHolder: `Enter starts; pick an option to change it for ${these} (the settings keep the defaults)` });
      if (!pick) return undefined;
      if (pick.start) {
        await this.state.update(RUN_OPTIONS_KEY, rememberedOf(changed as AuditOptions));
        return changed as AuditOptions;
      }
      let item: RunOptionItem | undefined = pick;
      if (pick.all) {
        item = await vscode.window.showQuickPick(allOptionItems(current()), { ...STAYS_OPEN, title: 'Reach Audit: all options of this run', placeHolder: 'The option to change (its --help line below it)', matchOnDetail: true });
        if (!item) continue;
      }
      if (!item.option) continue;
      const value = await this.optionValue(item.option, item.label, current());
      if (value === null) continue;
      if (value.value === undefined) delete changed[item.option];
      else changed[item.option] = value.value;
    }
  }

  /** One option's new value: a pick among its allowed values, on/off, or typed; null when dismissed. */
  private async optionValue(option: string, flag: string, current: AuditOptions): Promise<{ value: unknown } | null> {
    const now = valueText((current as Record<string, unknown>)[option]);
    const spec = (AUDIT_OPTIONS as Readonly<Record<string, OptionSpec>>)[option];
    const values = spec?.kind === 'boolean' ? ['on', 'off'] : choicesOf(option);
    let text: string | undefined;
    if (values) {
      const pick = await vscode.window.showQuickPick(
        [{ label: '(default)', value: '' }, ...values.map((v) => ({ label: v, value: v, description: v === now || (v === 'on' && now === 'true') || (v === 'off' && now === 'false') ? 'current' : undefined }))],
        { ...STAYS_OPEN, title: `Reach Audit: ${flag}` },
      );
      text = pick?.value;
    } else {
      text = await vscode.window.showInputBox({
        ...STAYS_OPEN,
        title: `Reach Audit: ${flag}`,
        prompt: `Empty: the default. ${valuePrompt(spec)}`,
        value: now ?? '',
        validateInput: (v) => {
          const r = parseOptionText(option, v);
          return 'problem' in r ? r.problem : undefined;
        },
      });
    }
    if (text === undefined) return null;
    const r = parseOptionText(option, text);
    return 'problem' in r ? null : r;
  }
}
