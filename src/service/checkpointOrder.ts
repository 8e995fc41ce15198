/**
 * Training order of checkpoint folders from their names: the step is the last number in the name
 * (checkpoint-1000, global_step_500, step500), compared as a number, so checkpoint-100 comes before
 * checkpoint-1000 (a string sort would put it after). No I/O.
 */

/** The step a checkpoint folder's name carries, or undefined when it has no number. */
export function checkpointStep(name: string): number | undefined {
  const runs = name.match(/\d+/g);
  if (!runs) return undefined;
  const step = Number(runs[runs.length - 1]);
  return Number.isSafeInteger(step) ? step : undefined;
}

/** Sort comparator: by step; names without a step after every numbered one; equal steps by name. */
export function compareCheckpointNames(a: string, b: string): number {
  const sa = checkpointStep(a);
  const sb = checkpointStep(b);
  if (sa !== undefined && sb !== undefined && sa !== sb) return sa - sb;
  if ((sa === undefined) !== (sb === undefined)) return sa === undefined ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Names in training order (a new array). */
export function inTrainingOrder(names: Iterable<string>): string[] {
  return [...names].sort(compareCheckpointNames);
}
