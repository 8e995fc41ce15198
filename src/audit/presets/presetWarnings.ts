/**
 * The warning lines a preset's examples call for before an audit: examples that are benchmark
 * test-split lines (the same for every question, flagged in the manifest as `exemplars:
 * test-split`), and with a dev split, the subjects it has no (or too few) examples for.
 */
import type { Question } from '../dataset';
import { questionSubject } from '../question';
import type { Deployment } from '../../contract';
import { PRESETS, TEST_SPLIT_SETS } from './presets';
import { MMLU_SHOTS } from './mmluDevSplit';
import type { FewShotPresetName } from './presetNames';

export function presetWarnings(d: Deployment, questions: readonly Question[]): string[] {
  if (!d.preset || !(d.preset in PRESETS)) return [];
  const name = d.preset as FewShotPresetName;
  const set = TEST_SPLIT_SETS[name];
  const generic = set ? `${d.fewShot.length} test-split lines of ${set.file}${name === 'mmlu-5shot' ? ' (all high-school mathematics)' : ''}` : 'the generic set';
  const out: string[] = [];
  if (d.exemplars === 'test-split') {
    const advice = name === 'mmlu-5shot' ? "; give the benchmark's dev split with --fewshot-file FILE to ask each subject with its own dev examples" : '';
    out.push(`--preset ${name}: the examples are not the published ones but ${generic}, the same for every question (flagged in manifest.json: deployment.exemplars test-split)${advice}`);
  }
  if (d.bySubject) {
    const missing = new Map<string, number>();
    for (const q of questions) {
      const subject = questionSubject(q) ?? '(no subject field)';
      if (!d.bySubject[subject]) missing.set(subject, (missing.get(subject) ?? 0) + 1);
    }
    if (missing.size > 0) {
      const list = [...missing].map(([s, n]) => `${s} (${n})`).join(', ');
      out.push(`--fewshot-file: no dev examples for ${list}; those questions are asked with ${generic}, without a subject header`);
    }
    const few = Object.entries(d.bySubject).filter(([, p]) => p.fewShot.length < MMLU_SHOTS);
    if (few.length > 0) out.push(`--fewshot-file: fewer than ${MMLU_SHOTS} dev examples for ${few.map(([s, p]) => `${s} (${p.fewShot.length})`).join(', ')}; those subjects are asked with what there is`);
  }
  return out;
}
