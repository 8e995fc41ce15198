/**
 * The request that continues a stopped run in its own folder, read from its manifest: the options
 * the run was started with (the same command line Copy Command Line gives, parsed back), its folder
 * as the output and resume on. The engine checks that they match the manifest, so a run resumed
 * here gives the records it would have given uninterrupted.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { AUDIT_FLAGS, CLI_ONLY_OPTION_NAMES, optionsFromFlags, reproduceCommand, type AuditRequestOptions } from '../../service';
import { MANIFEST_FILE, readManifest, SUMMARY_FILE } from '../../audit/store';

/** The workspace a run was made in (<workspace>/.reach-audit/runs/<run>): its manifest's relative paths start there. */
export function workspaceOfRun(runDir: string): string {
  return path.resolve(runDir, '..', '..', '..');
}

export type ResumePlan = { options: AuditRequestOptions; dataset: string } | { problem: string };

/** What resuming `runDir` runs, or why it cannot be resumed from VS Code. */
export function resumePlan(runDir: string): ResumePlan {
  const name = path.basename(runDir);
  if (!fs.existsSync(path.join(runDir, MANIFEST_FILE))) return { problem: `${name} has no manifest.json: it never started, so there is nothing to resume.` };
  if (fs.existsSync(path.join(runDir, SUMMARY_FILE))) return { problem: `${name} is finished (summary.json is there): nothing to resume.` };
  const manifest = readManifest(runDir);
  if (manifest.imported) return { problem: `${name} was imported from a log: no audit ran, so none can be resumed.` };
  const { args, gaps } = reproduceCommand(manifest);
  const values = parseArgs({ args: args.slice(2), options: { model: { type: 'string' }, ...AUDIT_FLAGS }, strict: true, allowPositionals: false }).values;
  const { model, ...flags } = values;
  const options = optionsFromFlags(flags);
  const cliOnly = Object.keys(options).filter((k) => CLI_ONLY_OPTION_NAMES.has(k));
  if (cliOnly.length > 0 || gaps.some((g) => /needs its|--fewshot|--template/.test(g))) {
    return { problem: `${name} was started with what only the command line can give again (${[...cliOnly, ...gaps].join('; ')}): resume it in a terminal with reach-audit audit --resume --out ${runDir} and the same flags.` };
  }
  if (typeof model !== 'string' || typeof options.data !== 'string') return { problem: `${name}: its manifest names no model or dataset.` };
  const workspace = workspaceOfRun(runDir);
  const data = options.data;
  return {
    options: { ...options, model, data, out: runDir, resume: true, workspace } as AuditRequestOptions,
    dataset: path.resolve(workspace, data),
  };
}
