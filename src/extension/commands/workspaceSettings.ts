/**
 * The `reachAudit.*` settings, read into engine request options. Settings hold the defaults;
 * command arguments and the user's picks (remembered per workspace) override them.
 */
import * as vscode from 'vscode';
import { type AuditRequestOptions, DEFAULT_PROBES } from '../../service';

export interface AuditSettings {
  modelPath?: string;
  baseModelPath?: string;
  tunedModelPath?: string;
  probes: string[];
  selectors?: string[];
  repair: boolean;
  maxNewTokens?: number;
  /** The sample probe's temperature and top-p (the `reachAudit.temperature` and `reachAudit.sampleTopP` settings). */
  sampleTemperature?: number;
  sampleTopP?: number;
  /** A few-shot preset for a base model, or none (the chat template). */
  preset?: string;
  /** MMLU's dev split for the `mmlu-5shot` preset (`reachAudit.fewshotFile`). */
  fewshotFile?: string;
  threads?: number;
  cacheFolder?: string;
  seed?: number;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') && value.length > 0 ? (value as string[]) : undefined;
}

function whole(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** Relative folder settings are relative to the first workspace folder. */
function folder(value: unknown, scope: vscode.Uri | undefined): string | undefined {
  const p = text(value);
  if (!p) return undefined;
  const expanded = p.startsWith('~/') ? `${process.env.HOME ?? ''}${p.slice(1)}` : p;
  if (expanded.startsWith('/') || /^[A-Za-z]:[\\/]/.test(expanded)) return expanded;
  return scope ? vscode.Uri.joinPath(scope, expanded).fsPath : expanded;
}

export function readAuditSettings(scope?: vscode.Uri): AuditSettings {
  const c = vscode.workspace.getConfiguration('reachAudit', scope);
  const root = scope ?? vscode.workspace.workspaceFolders?.[0]?.uri;
  const temperature = c.get<unknown>('temperature');
  const topP = c.get<unknown>('sampleTopP');
  return {
    modelPath: folder(c.get('modelPath'), root),
    baseModelPath: folder(c.get('baseModelPath'), root),
    tunedModelPath: folder(c.get('tunedModelPath'), root),
    probes: strings(c.get('defaultProbes')) ?? [...DEFAULT_PROBES],
    selectors: strings(c.get('selectors')),
    repair: c.get<boolean>('repair') === true,
    maxNewTokens: whole(c.get('maxNewTokens')) || undefined,
    sampleTemperature: typeof temperature === 'number' && Number.isFinite(temperature) ? temperature : undefined,
    sampleTopP: typeof topP === 'number' && Number.isFinite(topP) ? topP : undefined,
    preset: text(c.get('preset')),
    fewshotFile: folder(c.get('fewshotFile'), root),
    threads: whole(c.get('threads')) || undefined,
    cacheFolder: folder(c.get('cacheFolder'), root),
    seed: whole(c.get('seed')),
  };
}

/** The run settings part of a request (everything but model, data and selection). */
export function runOptionsOf(settings: AuditSettings): Omit<AuditRequestOptions, 'model' | 'data'> {
  const o: Omit<AuditRequestOptions, 'model' | 'data'> = { probes: settings.probes, repair: settings.repair };
  if (settings.selectors) o.select = settings.selectors;
  if (settings.maxNewTokens !== undefined) o.maxNewTokens = settings.maxNewTokens;
  // reachAudit.temperature has always been described as the sample probe's; the deployment stays greedy.
  if (settings.sampleTemperature !== undefined) o.sampleTemperature = settings.sampleTemperature;
  if (settings.sampleTopP !== undefined) o.sampleTopP = settings.sampleTopP;
  if (settings.preset !== undefined) o.preset = settings.preset;
  // A dev split is MMLU's; left set while another preset is chosen, it is not sent (the CLI would refuse it).
  if (settings.fewshotFile !== undefined && settings.preset === 'mmlu-5shot') o.fewshotFile = settings.fewshotFile;
  if (settings.threads !== undefined) o.threads = settings.threads;
  if (settings.cacheFolder !== undefined) o.cacheDir = settings.cacheFolder;
  if (settings.seed !== undefined) o.seed = settings.seed;
  return o;
}
