/**
 * The cost of an audit: planned generations per stage, the warm-up estimate before the first
 * question, and the time left only once it has been measured.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MIN_TIMED_MS } from '../../../src/audit/runner/timeLeft';
import { estimateAudit, estimateText, plannedGenerations } from '../../../src/audit/runner/auditEstimate';
import { runAudit } from '../../../src/audit/runner/runFolderAudit';
import type { AuditProgress } from '../../../src/audit/runner/runFolderAudit';
import { fakeFor, settingsFor, smallDataset, tempDir } from './fixtures';
import type { TextGenerator } from '../../../src/engine/types';

test('planned generations per question: deployment, each probe at its budget, the pool; repair per scanned question', () => {
  const plan = plannedGenerations(settingsFor(), 8);
  assert.deepEqual(plan.byStage, { deployment: 1, sample: 6, routes: 6, search: 6, 'global-routes': 5 });
  assert.equal(plan.repairPerScanned, 8);
  assert.equal(plannedGenerations(settingsFor(8, { repair: { enabled: false, referenceProbes: [] } }), 8).repairPerScanned, 0);
});

test('the depth probe is in the plan and the estimate: B from each of at most five prefixes, per failure-set question', async () => {
  const settings = settingsFor(8, { depthProbe: { budget: 3 } });
  assert.equal(plannedGenerations(settings, 8).depthPerFailure, 15);
  assert.equal(plannedGenerations(settingsFor(), 8).depthPerFailure, 0);
  const dataset = smallDataset(5);
  const e = await estimateAudit(fakeFor(dataset), dataset.questions, settings);
  assert.ok(e);
  assert.equal(e.depthPerFailure, 15);
  assert.deepEqual(e.generations, { least: 5 * 24, most: 5 * (32 + 15) });
  assert.match(estimateText(e).plan, /= 120 generations, \+ repair 8 per scanned question \+ depth probe up to 15 per failure-set question \(up to 235\)$/);
  const noRepair = await estimateAudit(fakeFor(dataset), dataset.questions, { ...settings, repair: { enabled: false, referenceProbes: ['sample'] } });
  assert.match(estimateText(noRepair!).plan, /= 120 generations, \+ depth probe up to 15 per failure-set question \(up to 195\)$/);
});

test('the foreclosure window is in the plan and the estimate: N per prefix, two bounds and a bisection as deep as the token budget, per failure-set question', async () => {
  const settings = settingsFor(8, { depthProbe: { budget: 3 }, foreclosureWindow: { samples: 8, threshold: 0.1, error: 0.05, look: 4 } });
  settings.deployment = { ...settings.deployment, maxNewTokens: 64 };
  // 2 bounds + log2 64 = 6 bisection points, 8 samples each.
  assert.equal(plannedGenerations(settings, 8).foreclosurePerFailure, 64);
  assert.equal(plannedGenerations(settingsFor(8, { depthProbe: { budget: 3 } }), 8).foreclosurePerFailure, 0);
  const dataset = smallDataset(5);
  const e = await estimateAudit(fakeFor(dataset), dataset.questions, settings);
  assert.ok(e);
  assert.equal(e.foreclosurePerFailure, 64);
  assert.deepEqual(e.generations, { least: 5 * 24, most: 5 * (32 + 15 + 64) });
  assert.match(estimateText(e).plan, /\+ depth probe up to 15 per failure-set question \+ foreclosure window up to 64 per failure-set question \(up to 555\)$/);
});

test('the warm-up estimate: plan, tokens per generation, measured speed, in words', async () => {
  const dataset = smallDataset(5);
  const model = fakeFor(dataset);
  const e = await estimateAudit(model, dataset.questions, settingsFor());
  assert.ok(e);
  assert.equal(e.questions, 5);
  assert.deepEqual(e.generations, { least: 5 * 24, most: 5 * 32 });
  // The first question's own mix: the deployment, then up to 8 per probe and of the pool (budget 6, pool 5).
  assert.equal(e.warmUp.sequences, 1 + 6 + 6 + 6 + 5);
  // Real clock and a generator that takes microseconds: the prompt share may round to 0 (clamped, never
  // negative); the exact split is checked with a known clock in the next test.
  assert.ok(e.warmUp.promptSecondsPerGeneration! >= 0 && e.warmUp.decodeSecondsPerToken! > 0);
  assert.ok(e.warmUp.tokens > 0 && e.warmUp.tokensPerSecond > 0);
  assert.ok(e.seconds.least > 0 && e.seconds.most > e.seconds.least);
  const text = estimateText(e);
  assert.match(text.plan, /^5 questions × \(deployment 1 \+ sample 6 \+ routes 6 \+ search 6 \+ global-routes 5\) = 120 generations, \+ repair 8 per scanned question \(up to 160\)$/);
  assert.match(text.cost, /^about [\d,]+–[\d,]+ tokens \(\d+(–\d+)? per generation(; outputs not stopped within the warm-up may run to the token budget)?\), about \S+(–\S+)? at [\d.]+ tokens\/s \(measured warm-up: 24 of the first question's requests, \d+ tokens in [\d.]+ s\)$/);
});

test('memory beside time: the weights and the KV the sequences can hold at once, and what is not counted', async () => {
  const dataset = smallDataset(5);
  const e = await estimateAudit(fakeFor(dataset), dataset.questions, settingsFor());
  assert.ok(e);
  assert.ok(!estimateText(e).cost.includes('memory'), 'no figure (a server): nothing said');
  // 25,280 bytes of weights (24.7 KiB); 32 sequences × 64 KiB = 2 MiB of KV.
  const cost = estimateText({ ...e, memory: { weightBytes: 25280, weights: 'f32', kvPerSequenceBytes: 65536, atOnce: 32 } }).cost;
  assert.ok(cost.startsWith(estimateText(e).cost), cost);
  assert.ok(
    cost.endsWith('; memory: about 24.7 KiB of f32 weights + up to 2 MiB of KV cache (32 sequences at once × 64 KiB), not counting working buffers, prompts prefilled ahead or the prefix store'),
    cost,
  );
  const one = estimateText({ ...e, memory: { weightBytes: 13896, weights: 'int8', kvPerSequenceBytes: 491520, atOnce: 1 } }).cost;
  assert.match(one, /; memory: about 13\.6 KiB of int8 weights \+ up to 480 KiB of KV cache \(1 sequence at once × 480 KiB\),/);
});

test('the warm-up separates prompt costs from decode costs: a generator of known costs is estimated exactly', async () => {
  // A generator whose clock advances by 50 ms per request (its prompt and first token) and 2 ms per
  // later token: a warm-up of sampled shared prompts at 16 tokens alone would read it as
  // (50 + 15 × 2) / 16 = 5 ms per token, 5x too fast for 64-token generations.
  const dataset = smallDataset(5);
  const inner = fakeFor(dataset);
  let now = 0;
  const costed: TextGenerator = {
    numBlocks: inner.numBlocks,
    encodeChat: (m) => inner.encodeChat(m),
    encodeRaw: (t) => inner.encodeRaw(t),
    decode: (ids) => inner.decode(ids),
    async generate(requests, signal, options) {
      // Cut at the request's token limit, as the engine does (the fake answers in full).
      const out = (await inner.generate(requests, signal, options)).map((g, i) => {
        const tokens = g.tokens.slice(0, requests[i].maxNewTokens);
        return tokens.length < g.tokens.length ? { ...g, tokens, logprobs: g.logprobs.slice(0, tokens.length), finishReason: 'length' as const } : g;
      });
      for (const g of out) now += 50 + 2 * Math.max(0, g.tokens.length - 1);
      return out;
    },
  };
  const settings = settingsFor(8, { deployment: { ...settingsFor().deployment, maxNewTokens: 64 } });
  const e = await estimateAudit(costed, dataset.questions, settings, undefined, () => now);
  assert.ok(e);
  assert.ok(Math.abs(e.warmUp.promptSecondsPerGeneration! - 0.05) < 1e-9, String(e.warmUp.promptSecondsPerGeneration));
  assert.ok(Math.abs(e.warmUp.decodeSecondsPerToken! - 0.002) < 1e-9, String(e.warmUp.decodeSecondsPerToken));
  const perGeneration = (g: number) => 0.05 + (g - 1) * 0.002;
  assert.ok(Math.abs(e.seconds.least - e.generations.least * perGeneration(e.tokensPerGeneration.least)) < 1e-6);
  assert.ok(Math.abs(e.seconds.most - e.generations.most * perGeneration(e.tokensPerGeneration.most)) < 1e-6);
  assert.ok(Math.abs(e.warmUp.tokensPerSecond - e.tokensPerGeneration.most / perGeneration(e.tokensPerGeneration.most)) < 1e-6);
});

test('tokens per generation are a range: an output still going at the warm-up\'s end counts the warm-up\'s length at least and the budget at most', async () => {
  // Every other request stops after 5 tokens; the rest never stop. At the warm-up's 16 tokens the
  // ones still going may end anywhere up to the 64-token budget: 10.5 to 34.5 tokens per generation.
  const dataset = smallDataset(5);
  const inner = fakeFor(dataset);
  let now = 0;
  const seen: number[] = [];
  const lengths: TextGenerator = {
    numBlocks: inner.numBlocks,
    encodeChat: (m) => inner.encodeChat(m),
    encodeRaw: (t) => inner.encodeRaw(t),
    decode: (ids) => inner.decode(ids),
    async generate(requests) {
      seen.push(requests.length);
      return requests.map((r, i) => {
        const stops = i % 2 === 0 && r.maxNewTokens >= 5;
        const n = stops ? 5 : r.maxNewTokens;
        now += 10 + n;
        const tokens = Array.from({ length: n }, () => 1);
        return { tokens, text: '', logprobs: tokens.map(() => -1), finishReason: stops ? ('stop' as const) : ('length' as const), cost: { generatedTokens: n, blockApplications: 0 } };
      });
    },
  };
  const settings = settingsFor(8, { deployment: { ...settingsFor().deployment, maxNewTokens: 64 } });
  const e = await estimateAudit(lengths, dataset.questions, settings, undefined, () => now);
  assert.ok(e);
  // An untimed pass of two requests first (compiling, the sessions' first runs), then the two timed passes.
  assert.deepEqual(seen, [2, e.warmUp.sequences, e.warmUp.sequences]);
  const stopped = Math.ceil(e.warmUp.sequences / 2);
  const going = e.warmUp.sequences - stopped;
  assert.ok(Math.abs(e.tokensPerGeneration.least - (5 * stopped + 16 * going) / e.warmUp.sequences) < 1e-9, JSON.stringify(e.tokensPerGeneration));
  assert.ok(Math.abs(e.tokensPerGeneration.most - (5 * stopped + 64 * going) / e.warmUp.sequences) < 1e-9, JSON.stringify(e.tokensPerGeneration));
  assert.ok(e.seconds.least < e.seconds.most);
  assert.match(estimateText(e).cost, /^about [\d,]+–[\d,]+ tokens \(\d+–\d+ per generation; outputs not stopped within the warm-up may run to the token budget\), about \S+–\S+ at /);
});

test('a run hands out its estimate before the first question, and progress shows no time left before its speed is timed', async () => {
  const dataset = smallDataset(6);
  const events: string[] = [];
  const progress: AuditProgress[] = [];
  await runAudit({
    model: fakeFor(dataset),
    modelInfo: { path: '/m', contentHash: 'h' },
    engineVersion: 'test',
    dataset,
    questions: dataset.questions,
    settings: settingsFor(),
    name: 't',
    folder: tempDir(),
    resume: false,
    inFlight: 2,
    onEstimate: () => events.push('estimate'),
    onRecord: () => events.push('record'),
    onProgress: (p) => progress.push(p),
  });
  assert.equal(events[0], 'estimate');
  assert.equal(events.filter((e) => e === 'estimate').length, 1);
  // The fake answers in milliseconds: under timeLeft.ts's minimum timed work, so no time left is claimed.
  for (const p of progress) if (p.elapsedMs < MIN_TIMED_MS) assert.equal(p.remainingMs, undefined);
  assert.ok(progress.some((p) => p.tokensPerSecond !== undefined));
  assert.equal(progress.at(-1)!.done, 6);
});

test('where the engine counts its tokens, the decode cost is the pace of the longer pass after its prompts, not the passes\' difference', async () => {
  // A generator on the real clock: a one-token pass costs 250 ms (its prompts); the 16-token pass
  // finds its prompts done already (40 ms, as the engine's prefix store serves them) and then decodes
  // 15 steps of 20 ms, one token per sequence each. The passes' difference would read
  // (40 + 300 - 250) / 15 ms per step, 3.3x too fast; the engine's count reads the 20 ms.
  const dataset = smallDataset(5);
  const inner = fakeFor(dataset);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  let counted = 0;
  let passes = 0;
  const paced: TextGenerator = {
    numBlocks: inner.numBlocks,
    encodeChat: (m) => inner.encodeChat(m),
    encodeRaw: (t) => inner.encodeRaw(t),
    decode: (ids) => inner.decode(ids),
    get tokensGenerated() {
      return counted;
    },
    async generate(requests) {
      passes++;
      const n = requests.length;
      const steps = requests[0].maxNewTokens;
      await sleep(passes === 2 ? 250 : 40);
      counted += n;
      for (let s = 1; s < steps; s++) {
        await sleep(20);
        counted += n;
      }
      return requests.map((r) => {
        const tokens = Array.from({ length: r.maxNewTokens }, () => 1);
        return { tokens, text: '', logprobs: tokens.map(() => -1), finishReason: 'length' as const, cost: { generatedTokens: tokens.length, blockApplications: 0 } };
      });
    },
  };
  const settings = settingsFor(8, { deployment: { ...settingsFor().deployment, maxNewTokens: 64 } });
  const e = await estimateAudit(paced, dataset.questions, settings);
  assert.ok(e);
  const truth = 0.02 / e.warmUp.sequences;
  const got = e.warmUp.decodeSecondsPerToken!;
  // Timers are late on a busy machine, never early: a generous band that the difference (0.3x) misses.
  assert.ok(got > 0.7 * truth && got < 2 * truth, `${got} s per token vs ${truth}`);
});
