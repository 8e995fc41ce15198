/**
 * The model and dataset labels of the runs in one set of tables. By default the folder names
 * ("base", "arith-test.jsonl"); where two runs would read the same, the labels grow until they
 * differ: first the dataset's (or model's) path from the folder where the two paths part
 * ("demo/data/arith-test.jsonl" against "my-copy/arith-test.jsonl"), then, for runs of the same
 * model on the same file, the run's own folder name. Two different runs never share a row label.
 */
import * as path from 'node:path';

export interface LabelSource {
  folder: string;
  modelPath: string;
  datasetPath: string;
}

export interface RunLabel {
  model: string;
  dataset: string;
}

/** The shortest path tails (by whole segments) that tell `paths` apart; equal paths keep their base name. */
function distinctTails(paths: readonly string[]): string[] {
  const parts = paths.map((p) => path.resolve(p).split(/[\\/]+/).filter((s) => s !== ''));
  const longest = Math.max(...parts.map((p) => p.length));
  return parts.map((own, i) => {
    for (let take = 1; take <= longest; take++) {
      const tail = own.slice(-take).join('/');
      const clash = parts.some((other, j) => j !== i && path.resolve(paths[j]) !== path.resolve(paths[i]) && other.slice(-take).join('/') === tail);
      if (!clash) return tail;
    }
    return own.join('/');
  });
}

export function distinctRunLabels(sources: readonly LabelSource[]): RunLabel[] {
  const labels: RunLabel[] = sources.map((s) => ({ model: path.basename(s.modelPath), dataset: path.basename(s.datasetPath) }));
  const key = (l: RunLabel) => `${l.model}\u0000${l.dataset}`;
  const groups = new Map<string, number[]>();
  labels.forEach((l, i) => groups.set(key(l), [...(groups.get(key(l)) ?? []), i]));
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const datasets = distinctTails(members.map((i) => sources[i].datasetPath));
    const models = distinctTails(members.map((i) => sources[i].modelPath));
    members.forEach((i, k) => (labels[i] = { model: models[k], dataset: datasets[k] }));
    // The same model on the same file (another seed, budget or limit): the run folder says which.
    const again = new Map<string, number[]>();
    for (const i of members) again.set(key(labels[i]), [...(again.get(key(labels[i])) ?? []), i]);
    for (const same of again.values()) {
      if (same.length < 2) continue;
      for (const i of same) labels[i] = { ...labels[i], model: `${labels[i].model} · ${path.basename(sources[i].folder)}` };
    }
  }
  return labels;
}
