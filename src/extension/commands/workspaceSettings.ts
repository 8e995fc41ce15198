/**
 * The `reachAudit.*` settings, read into engine request options. Settings hold the defaults;
 * command arguments and the user's picks (remembered per workspace) override them. Which setting
 * is which option is the options table's business (src/service/optionSettings.ts), so every audit
 * option the table gains is read here too.
 */
import * as vscode from 'vscode';
import { type AuditRequestOptions, CLI_ONLY_OPTION_NAMES, DEFAULT_PROBES, type AuditOptions, optionsFromSettings, SETTINGS_SECTION } from '../../service';

export interface AuditSettings {
  modelPath?: string;
  baseModelPath?: string;
  tunedModelPath?: string;
  probes: string[];
  selectors?: string[];
  cacheFolder?: string;
  /** Every audit option the settings set (probes, selectors and cache folder included). */
  options: AuditOptions;
  /** Settings with a value of the wrong type (left out of the options), as `reachAudit.key: expected …`. */
  problems: string[];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** Relative paths in settings are relative to the first workspace folder; `~/` is the home folder. */
function resolveIn(p: string, scope: vscode.Uri | undefined): string {
  const expanded = p.startsWith('~/') ? `${process.env.HOME ?? ''}${p.slice(1)}` : p;
  if (expanded.startsWith('/') || /^[A-Za-z]:[\\/]/.test(expanded)) return expanded;
  return scope ? vscode.Uri.joinPath(scope, expanded).fsPath : expanded;
}

function folder(value: unknown, scope: vscode.Uri | undefined): string | undefined {
  const p = text(value);
  return p === undefined ? undefined : resolveIn(p, scope);
}

export function readAuditSettings(scope?: vscode.Uri): AuditSettings {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION, scope);
  const root = scope ?? vscode.workspace.workspaceFolders?.[0]?.uri;
  const { options, problems } = optionsFromSettings((key) => c.get<unknown>(key), (p) => resolveIn(p, root));
  return {
    modelPath: folder(c.get('modelPath'), root),
    baseModelPath: folder(c.get('baseModelPath'), root),
    tunedModelPath: folder(c.get('tunedModelPath'), root),
    probes: options.probes ?? [...DEFAULT_PROBES],
    selectors: options.select,
    cacheFolder: options.cacheDir,
    options,
    problems,
  };
}

/** The run settings part of a request (everything but model, data and selection). */
export function runOptionsOf(settings: AuditSettings): Omit<AuditRequestOptions, 'model' | 'data'> {
  const o: Record<string, unknown> = { ...settings.options, probes: settings.probes, repair: settings.options.repair === true };
  // The engine process refuses the command line's own options (no setting holds one; a command argument might).
  for (const k of CLI_ONLY_OPTION_NAMES) delete o[k];
  // A dev split is MMLU's; left set while another preset is chosen, it is not sent (the CLI would refuse it).
  if (settings.options.preset !== 'mmlu-5shot') delete o.fewshotFile;
  return o as Omit<AuditRequestOptions, 'model' | 'data'>;
}
