/**
 * Calls `fn` at most once every `ms` with the latest argument: the first call schedules it, later
 * calls within the wait only replace the argument. (A debounce would never fire while a run
 * streams a record every few hundred milliseconds, which froze the Runs view's counts.)
 */
export interface Throttled<A> {
  (arg: A): void;
  /** Drops a pending call. */
  cancel(): void;
}

export function throttle<A>(ms: number, fn: (arg: A) => void, timers: { set: typeof setTimeout; clear: typeof clearTimeout } = { set: setTimeout, clear: clearTimeout }): Throttled<A> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let latest: A;
  const call = ((arg: A) => {
    latest = arg;
    if (timer !== undefined) return;
    timer = timers.set(() => {
      timer = undefined;
      fn(latest);
    }, ms);
  }) as Throttled<A>;
  call.cancel = () => {
    if (timer !== undefined) timers.clear(timer);
    timer = undefined;
  };
  return call;
}
