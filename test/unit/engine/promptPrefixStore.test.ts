/**
 * The prefix store's bookkeeping: the longest stored prefix of a route, copies that outlive the
 * batch's buffers, and the byte budget (least recently used prompts dropped whole; a prompt that
 * alone fills the budget stops growing).
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { KvBuffer, KvCache } from '../../../src/engine/decode/kvCache';
import { type PrefixNode, PromptPrefixStore, stepKey } from '../../../src/engine/decode/promptPrefixStore';

const KV = 2;
const Dp = 8;
const TOKENS = 3;
const H = 4;
/** Bytes of one node: the block output for TOKENS tokens plus keys and values of TOKENS slots. */
const NODE = TOKENS * H * 4 + 2 * KV * TOKENS * Dp * 4;

/** A cache of TOKENS slots in row 1 of a two-row buffer, every value `fill`. */
function cache(fill: number): KvCache {
  const b = new KvBuffer(2, KV, 16, Dp);
  b.k.fill(fill);
  b.v.fill(-fill);
  return new KvCache(b, 1, TOKENS);
}

function hidden(fill: number): Float32Array {
  return new Float32Array(TOKENS * H).fill(fill);
}

/** Stores `steps` for `prompt` one after another, as a prefill does; the nodes stored. */
function storeRoute(store: PromptPrefixStore, prompt: string, steps: string[]): number {
  let parent: PrefixNode | null = null;
  let n = 0;
  for (const [i, s] of steps.entries()) {
    parent = store.insert(prompt, parent, s, hidden(i + 1), cache(i + 1));
    if (!parent) break;
    n++;
  }
  return n;
}

describe('prompt prefix store', () => {
  it('finds the longest stored prefix of a route, a silenced MLP being a step of its own', () => {
    const store = new PromptPrefixStore(1 << 20);
    storeRoute(store, 'p', ['0', '1', '2', '3']);
    assert.equal(store.lookup('p', ['0', '1', '2', '3']).length, 4);
    assert.equal(store.lookup('p', ['0', '1', '1', '2', '3']).length, 2);
    assert.equal(store.lookup('p', ['0', stepKey(1, true), '2', '3']).length, 1);
    assert.equal(store.lookup('p', ['1', '2']).length, 0);
    assert.equal(store.lookup('q', ['0', '1']).length, 0, 'another prompt');
    assert.equal(stepKey(1, true), '1s');
    assert.equal(stepKey(1, false), '1');
  });

  it('keeps its own copy of the output and of the filled slots, read by forks only', () => {
    const store = new PromptPrefixStore(1 << 20);
    const h = hidden(7);
    const kv = cache(7);
    const node = store.insert('p', null, '0', h, kv);
    assert.ok(node);
    h.fill(0);
    kv.buffer.k.fill(0);
    assert.deepEqual([...node.hidden], new Array(TOKENS * H).fill(7));
    assert.equal(node.kv.length, TOKENS);
    assert.equal(node.kv.buffer.rows, 1);
    assert.deepEqual([...node.kv.buffer.k], new Array(KV * TOKENS * Dp).fill(7));
    assert.deepEqual([...node.kv.buffer.v], new Array(KV * TOKENS * Dp).fill(-7));
    assert.equal(node.kv.ownsRow, false, 'nothing appends to a stored cache');
    assert.equal(node.kv.fork().ownsRow, false);
    // Storing the same step again returns the node already there.
    assert.equal(store.insert('p', null, '0', hidden(1), cache(1)), node);
    assert.equal(store.usedBytes, NODE);
  });

  it('drops the least recently used prompt whole when the budget is full, never the one being stored', () => {
    const store = new PromptPrefixStore(5 * NODE);
    assert.equal(storeRoute(store, 'a', ['0', '1']), 2);
    assert.equal(storeRoute(store, 'b', ['0', '1']), 2);
    store.lookup('a', ['0']); // a is now the more recent
    assert.equal(storeRoute(store, 'c', ['0', '1']), 2);
    assert.equal(store.lookup('b', ['0', '1']).length, 0, 'b, least recently used, was dropped');
    assert.equal(store.lookup('a', ['0', '1']).length, 2);
    assert.equal(store.lookup('c', ['0', '1']).length, 2);
    assert.equal(store.usedBytes, 4 * NODE);
    // A prompt that needs more than the budget takes the room of the others, then stops growing.
    assert.equal(storeRoute(store, 'd', ['0', '1', '2', '3', '4', '5', '6']), 5);
    assert.equal(store.usedBytes, 5 * NODE);
    assert.equal(store.lookup('a', ['0']).length + store.lookup('c', ['0']).length, 0);
    assert.equal(store.lookup('d', ['0', '1', '2', '3', '4', '5', '6']).length, 5);
  });

  it('stores nothing with a budget of 0 or smaller than one node', () => {
    assert.equal(storeRoute(new PromptPrefixStore(0), 'p', ['0']), 0);
    const small = new PromptPrefixStore(NODE - 1);
    assert.equal(storeRoute(small, 'p', ['0']), 0);
    assert.equal(small.usedBytes, 0);
  });

  it('clear drops every prompt and its bytes; storing works again after', () => {
    const store = new PromptPrefixStore(5 * NODE);
    storeRoute(store, 'a', ['0', '1']);
    storeRoute(store, 'b', ['0']);
    store.clear();
    assert.equal(store.usedBytes, 0);
    assert.equal(store.lookup('a', ['0']).length + store.lookup('b', ['0']).length, 0);
    assert.equal(storeRoute(store, 'a', ['0', '1', '2', '3', '4']), 5, 'the whole budget is free again');
  });
});
