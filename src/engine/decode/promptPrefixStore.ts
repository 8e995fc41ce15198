/**
 * What a prompt's prefill computed, kept for later prefills of the same prompt: a trie per prompt
 * over the route's steps (a block, with or without its MLP silenced), each node holding the block's
 * output for the prompt tokens and that route position's KV cache.
 *
 * An audit prefills one question's prompt many times: the deployment, its random routes, the route
 * pool, every route the search tries and each silenced MLP of the repair scan. They all run the
 * identity for a while before they leave it, and the search's routes share longer prefixes still.
 * A prefill that finds its route's first j steps here starts at block j with their outputs and
 * caches: those j block applications are not run again. The numbers are the same bits as running
 * them (a prompt row's block output does not depend on the other rows of its call, which the
 * engine's batch-invariance tests hold it to), so this changes speed only.
 *
 * Memory is bounded: nodes are kept up to `budgetBytes` (outputs plus caches); when full, the
 * prompt used least recently is dropped whole, and a prompt that alone fills the budget stops
 * growing. Caches are copied into buffers of their own, so a node never keeps a batch's buffer alive.
 */
import { KvBuffer, KvCache, copySlots } from './kvCache';

/** One route step: block `block`, its MLP silenced or not, its output perturbed (the perturbation's key) or not. */
export function stepKey(block: number, silenced: boolean, perturbed?: string): string {
  return `${block}${silenced ? 's' : ''}${perturbed ?? ''}`;
}

export class PrefixNode {
  readonly children = new Map<string, PrefixNode>();

  constructor(
    /** The block's output for every prompt token, [tokens, hidden]. */
    readonly hidden: Float32Array,
    /** This route position's cache of the prompt's keys and values; read by forks only. */
    readonly kv: KvCache,
  ) {}
}

class PromptTrie {
  readonly root = new Map<string, PrefixNode>();
  bytes = 0;
}

export class PromptPrefixStore {
  /** In order of last use, least recent first (a Map keeps insertion order). */
  private readonly prompts = new Map<string, PromptTrie>();
  private bytes = 0;

  constructor(readonly budgetBytes: number) {}

  get usedBytes(): number {
    return this.bytes;
  }

  /**
   * The longest stored prefix of `steps` for `prompt`: the nodes of its first steps, in order
   * (empty when nothing is stored).
   */
  lookup(prompt: string, steps: readonly string[]): PrefixNode[] {
    const trie = this.touch(prompt);
    const path: PrefixNode[] = [];
    if (!trie) return path;
    let level = trie.root;
    for (const s of steps) {
      const node = level.get(s);
      if (!node) break;
      path.push(node);
      level = node.children;
    }
    return path;
  }

  /**
   * Stores the next step after `parent` (null: the route's first step) unless it is stored
   * already, and returns its node; null when the budget has no room for it. `hidden` and the
   * cache's slots are copied.
   */
  insert(prompt: string, parent: PrefixNode | null, step: string, hidden: Float32Array, kv: KvCache): PrefixNode | null {
    if (this.budgetBytes <= 0) return null;
    let trie = this.touch(prompt);
    const level = parent ? parent.children : trie?.root;
    const found = level?.get(step);
    if (found) return found;
    const bytes = hidden.byteLength + kv.buffer.slotBytes(kv.length);
    if (!this.makeRoom(bytes, prompt)) return null;
    if (!trie) {
      trie = new PromptTrie();
      this.prompts.set(prompt, trie);
    }
    const node = new PrefixNode(hidden.slice(), copyCache(kv));
    (parent ? parent.children : trie.root).set(step, node);
    trie.bytes += bytes;
    this.bytes += bytes;
    return node;
  }

  /** Drops every prompt: a later prefill finds nothing stored (a bench's runs start alike). */
  clear(): void {
    this.prompts.clear();
    this.bytes = 0;
  }

  /** Marks `prompt` as used now; its trie, if any. */
  private touch(prompt: string): PromptTrie | undefined {
    const trie = this.prompts.get(prompt);
    if (trie) {
      this.prompts.delete(prompt);
      this.prompts.set(prompt, trie);
    }
    return trie;
  }

  /** Drops the least recently used other prompts until `bytes` more fit; false if they cannot. */
  private makeRoom(bytes: number, keep: string): boolean {
    if (bytes > this.budgetBytes) return false;
    for (const [prompt, trie] of this.prompts) {
      if (this.bytes + bytes <= this.budgetBytes) break;
      if (prompt === keep) continue;
      this.prompts.delete(prompt);
      this.bytes -= trie.bytes;
    }
    return this.bytes + bytes <= this.budgetBytes;
  }
}

/** A cache with `kv`'s filled slots in a one-row buffer that nothing appends to. */
function copyCache(kv: KvCache): KvCache {
  const to = new KvBuffer(1, kv.buffer.kvHeads, kv.length, kv.buffer.headSize, false, kv.buffer.precision);
  copySlots(kv.buffer, kv.row, to, 0, kv.length);
  return new KvCache(to, 0, kv.length);
}
