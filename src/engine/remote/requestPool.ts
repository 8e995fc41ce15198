/**
 * Runs items on several workers, each with a number of slots (requests in flight per server),
 * results in item order. The first failure cancels the rest and is rethrown; so does the caller's
 * abort signal.
 */
export interface PoolWorker<T, R> {
  slots: number;
  run(item: T, signal: AbortSignal): Promise<R>;
}

export async function runPooled<T, R>(items: readonly T[], workers: readonly PoolWorker<T, R>[], signal?: AbortSignal): Promise<R[]> {
  const results = new Array<R>(items.length);
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) controller.abort(signal.reason);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async (worker: PoolWorker<T, R>) => {
    while (!failure && !controller.signal.aborted && next < items.length) {
      const i = next++;
      try {
        results[i] = await worker.run(items[i], controller.signal);
      } catch (error) {
        failure ??= { error };
        controller.abort(error);
      }
    }
  };
  try {
    // Lanes are started worker by worker, slot by slot, so the first items spread round-robin.
    const lanes: Promise<void>[] = [];
    const most = Math.max(0, ...workers.map((w) => w.slots));
    for (let slot = 0; slot < most; slot++) for (const w of workers) if (slot < w.slots) lanes.push(lane(w));
    await Promise.all(lanes);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (failure) throw signal?.aborted ? signal.reason ?? failure.error : failure.error;
  if (controller.signal.aborted) throw signal?.reason ?? new Error('aborted');
  return results;
}
