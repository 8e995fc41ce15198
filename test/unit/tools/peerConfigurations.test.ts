import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Setup, type Timing, betweenCalls, groupReport, setupName, setupsOf } from '../../../tools/llama-cpp/peerConfigurations';

const noFlags = (): string | undefined => undefined;

function timing(decode: number): Timing {
  return { decode, endToEnd: decode / 2, inCalls: decode * 1.1, calls: 63, sequencesPerCall: 16, stepStartMs: 1000 / decode, stepEndMs: 1200 / decode, peakRssBytes: 2.5e9, tokens: [1, 2, 3] };
}

test('the grid: ours, then every llama.cpp configuration of flash attention × mmap × the way tokens are asked for, each a setup of its own', () => {
  const setups = setupsOf('int8', 16, noFlags, 2, false);
  assert.equal(setups.length, 9);
  assert.deepEqual(setups[0], { engine: 'ours', precision: 'int8', sequences: 16, threads: 2, spin: false });
  const peers = setups.slice(1);
  assert.ok(peers.every((s) => s.engine === 'llama.cpp' && s.sequences === 16 && s.threads === 2 && s.batchSize === 512));
  assert.deepEqual(peers.map((s) => [s.flashAttention, s.mmap, s.api]), [[false, true, 'evaluate'], [false, true, 'controlled'], [false, false, 'evaluate'], [false, false, 'controlled'], [true, true, 'evaluate'], [true, true, 'controlled'], [true, false, 'evaluate'], [true, false, 'controlled']]);
  // llama.cpp starts as a user starts it: without our engine processes' allocator settings, unless asked.
  assert.ok(peers.every((s) => s.engineAllocator === false));
  assert.equal(new Set(setups.map(setupName)).size, setups.length, 'every configuration is named apart');
});

test('flags widen the grid; the old setup (beside a batch-1 context) only with 16 sequences and when asked', () => {
  const flags: Record<string, string> = { '--llama-api': 'evaluate', '--llama-threads': '1,2', '--llama-batch-sizes': '512,8', '--llama-flash-attention': 'on', '--llama-mmap': 'on', '--ours-spin': 'off,on' };
  const arg = (name: string): string | undefined => flags[name];
  const many = setupsOf('f32', 16, arg, 2, true);
  assert.equal(many.filter((s) => s.engine === 'ours').length, 2);
  const peers = many.filter((s) => s.engine === 'llama.cpp');
  // 2 thread counts × 2 batch sizes, the batch size never below the number of sequences, and the old setup.
  assert.deepEqual(peers.map((s) => [s.threads, s.batchSize, s.besideBatch1 === true]), [[1, 512, false], [1, 16, false], [2, 512, false], [2, 16, false], [1, 512, true]]);
  assert.equal(setupsOf('f32', 1, arg, 2, true).filter((s) => s.besideBatch1).length, 0);
  assert.throws(() => setupsOf('f32', 1, (n) => (n === '--llama-mmap' ? 'yes' : undefined), 2, false), /--llama-mmap: expected on and\/or off/);
  assert.throws(() => setupsOf('f32', 1, (n) => (n === '--llama-api' ? 'stream' : undefined), 2, false), /--llama-api: expected evaluate and\/or controlled/);
  assert.throws(() => setupsOf('f32', 1, (n) => (n === '--llama-allocator' ? 'tuned' : undefined), 2, false), /--llama-allocator: expected engine and\/or plain/);
  const both = setupsOf('f32', 1, (n) => ({ '--llama-allocator': 'plain,engine', '--llama-api': 'controlled', '--llama-flash-attention': 'off', '--llama-mmap': 'off' })[n], 2, false);
  assert.deepEqual(both.filter((s) => s.engine === 'llama.cpp').map((s) => s.engineAllocator), [false, true]);
  assert.match(setupName(both[2]), /controlled, our allocator settings$/);
});

test('the report names the best llama.cpp configuration by median decode and gives ours over it per round', () => {
  const setups: Setup[] = [...setupsOf('int8', 16, (n) => (n === '--llama-api' ? 'evaluate' : undefined), 2, true)];
  // Rounds of decode tokens/s per setup: ours, the four grid configurations, the old setup.
  const rounds = [[100, 90, 110], [40, 42, 41], [50, 55, 45], [60, 30, 58], [20, 21, 22], [200, 200, 200]];
  const lines = groupReport(setups, rounds.map((r) => r.map(timing)), { promptTokens: 32, newTokens: 64 }, 3);
  const best = setupName(setups[3]);
  assert.ok(lines.some((l) => l === `best llama.cpp configuration: ${best}`), lines.join('\n'));
  assert.ok(lines.some((l) => l.startsWith(best) && l.endsWith('← llama.cpp best')));
  // The old setup is reported but never the best, however fast it measured.
  assert.ok(lines.some((l) => l.includes('beside a batch-1 context (old tool)') && !l.includes('best')));
  // Per round: 100/60, 90/30, 110/58 = 1.67, 3.00, 1.90.
  const ratio = lines.find((l) => l.startsWith('reach-audit int8 / llama.cpp best'));
  assert.match(ratio ?? '', /decode 1\.90 \(1\.67–3\.00\)/);
  // Each configuration's step at the start and end of its decode, and its process's peak memory.
  const steps = lines.find((l) => l.startsWith('reach-audit int8 ') && l.includes('ms per decode call'));
  assert.match(steps ?? '', /first 4 → last 4: 10\.00 \(9\.09–11\.11\) → 12\.00 \(10\.91–13\.33\) \| peak RSS 2\.50 GB$/);
  assert.ok(!lines[0].includes('shared'));
  const shared = groupReport(setups, rounds.map((r) => r.map(timing)), { promptTokens: 8160, newTokens: 32, sharedPrompt: true }, 3);
  assert.match(shared[0], /8160-token prompts \(one prompt shared by the sequences, computed once; warm-up on a 32-token prompt\), 32 new tokens/);
});

test('the time between decode calls: each gap from one call\'s end to the next one\'s start, its median, mean and nearest-rank 90th percentile', () => {
  // Calls of 300 ms, [start, ms, rows]: gaps 40, 40, 40, 40, 40, 40, 40, 40, 40, 200 (one stalled step).
  const starts = [0];
  for (const gap of [40, 40, 40, 40, 40, 40, 40, 40, 40, 200]) starts.push(starts[starts.length - 1] + 300 + gap);
  const g = betweenCalls(starts.map((t) => [t, 300, 16]));
  assert.equal(g.median, 40);
  assert.equal(g.mean, 56);
  assert.equal(g.p90, 40);
  // Three stalls in ten gaps (85, 90, 90 ms after seven of 5): the 90th percentile is a stall.
  assert.equal(betweenCalls([[0, 10], [15, 10], [30, 10], [45, 10], [60, 10], [75, 10], [90, 10], [105, 10], [200, 10], [300, 10], [400, 10]]).p90, 90);
  assert.ok(Number.isNaN(betweenCalls([[0, 10]]).median), 'one call has no gap');
});

test('the report gives each configuration\'s time between decode calls when measured, and leaves the line as it was without', () => {
  const setups = setupsOf('f32', 16, (n) => ({ '--llama-api': 'controlled', '--llama-flash-attention': 'off', '--llama-mmap': 'off' })[n], 2, false);
  const withGaps = (decode: number, median: number, mean: number): Timing => ({ ...timing(decode), gapMs: { median, mean, p90: mean * 2 } });
  const lines = groupReport(setups, [[withGaps(70, 5, 6), withGaps(72, 7, 8)], [withGaps(40, 37, 80), withGaps(42, 39, 60)]], { promptTokens: 32, newTokens: 64 }, 2);
  const peer = lines.find((l) => l.startsWith(setupName(setups[1])) && l.includes('ms per decode call'));
  assert.match(peer ?? '', /\| ms between decode calls: median 38\.00 \(37\.00–39\.00\), mean 70\.00 \(60\.00–80\.00\), 90th percentile 140\.00 \(120\.00–160\.00\) \| peak RSS 2\.50 GB$/);
  const old = groupReport(setups, [[timing(70)], [timing(40)]], { promptTokens: 32, newTokens: 64 }, 1);
  assert.ok(old.every((l) => !l.includes('between decode calls')));
});
