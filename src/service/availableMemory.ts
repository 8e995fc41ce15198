/**
 * The memory the system can still give this process, read once before an audit to size the
 * default KV budget: Node's process.availableMemory where it exists (the system's free memory, on
 * Linux capped by the cgroup's limit, so that a container's own limit counts), else os.freemem
 * (the same without the cgroup's cap).
 */
import * as os from 'node:os';

export function availableMemory(): number {
  // process.availableMemory arrived in Node 20.13 and 22; older runtimes (an older editor's) lack it.
  const node = process as { availableMemory?: () => number };
  return typeof node.availableMemory === 'function' ? node.availableMemory() : os.freemem();
}
