/**
 * The requests one server has in flight, across every generate call of the generator. An audit
 * makes many generate calls at once (each question in flight asks for its deployment, its probes
 * and the route pool together), and a per-call limit multiplied them: 60-odd requests open at once
 * against a `serve --http` that holds 64 connections, which closed the rest as they arrived, so the
 * client saw "cannot reach the server" on every retry and the audit stopped. Requests past the limit
 * wait here, first come first served, until one of the server's requests ends; a waiting request
 * leaves when its caller aborts.
 */
export class ServerSlots {
  private busy = 0;
  private readonly queue: { start(): void; signal?: AbortSignal; onAbort(): void }[] = [];

  constructor(readonly limit: number) {}

  /** Requests in flight now (tests). */
  get inFlight(): number {
    return this.busy;
  }

  /** Waits for a free slot; the caller must call the returned release exactly once. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    if (this.busy < this.limit) {
      this.busy++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const entry = {
        start: () => {
          signal?.removeEventListener('abort', entry.onAbort);
          this.busy++;
          resolve(this.releaser());
        },
        signal,
        onAbort: () => {
          const at = this.queue.indexOf(entry);
          if (at >= 0) this.queue.splice(at, 1);
          reject(signal?.reason ?? new Error('aborted'));
        },
      };
      signal?.addEventListener('abort', entry.onAbort, { once: true });
      this.queue.push(entry);
    });
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.busy--;
      this.queue.shift()?.start();
    };
  }
}
