/**
 * The model picker's choices: the bundled demo pair (media/demo/base and media/demo/tuned inside the
 * extension, labelled as the demo) beside a folder browser, so a new user can run an audit or a
 * comparison without a model of their own. The demo checkpoint that fits the role comes first
 * (base for an audit or a comparison's base, the trained one for its tuned side); the folder last
 * picked for the role leads when there is one. Pure: no vscode, no file system.
 */
import * as path from 'node:path';
import type { ModelRole } from './reusedModelNote';

export interface ModelPickItem {
  label: string;
  description?: string;
  detail?: string;
  /** The folder this choice uses; absent for Browse…. */
  folder?: string;
}

const DEMO_BASE: ModelPickItem = { label: '$(beaker) Demo: base model', description: 'bundled with Reach Audit: a tiny arithmetic model to try it with' };
const DEMO_TUNED: ModelPickItem = { label: '$(beaker) Demo: trained model', description: 'bundled with Reach Audit: the demo base after three rounds of expert iteration' };

/** `demoDir`: the extension's media/demo, or undefined where its models are missing. */
export function modelPickItems(role: ModelRole, demoDir: string | undefined, remembered: string | undefined): ModelPickItem[] {
  const items: ModelPickItem[] = [];
  if (remembered !== undefined) items.push({ label: `$(history) ${path.basename(remembered)}`, description: 'last picked', detail: remembered, folder: remembered });
  if (demoDir !== undefined) {
    const base = { ...DEMO_BASE, detail: path.join(demoDir, 'base'), folder: path.join(demoDir, 'base') };
    const tuned = { ...DEMO_TUNED, detail: path.join(demoDir, 'tuned'), folder: path.join(demoDir, 'tuned') };
    const demos = role === 'tuned' ? [tuned, base] : [base, tuned];
    items.push(...demos.filter((d) => remembered === undefined || path.resolve(d.folder) !== path.resolve(remembered)));
  }
  items.push({ label: '$(folder-opened) Browse…', description: 'a Hugging Face model folder (config.json, tokenizer and *.safetensors)' });
  return items;
}
