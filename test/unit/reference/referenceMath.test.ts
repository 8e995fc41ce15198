import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  applyRope,
  causalAttention,
  linear,
  rmsNorm,
  ropeInverseFrequencies,
  silu,
} from '../../support/referenceTransformer';

const close = (a: number, b: number, tol = 1e-12) => assert.ok(Math.abs(a - b) <= tol, `${a} != ${b}`);
const v = (...x: number[]) => Float64Array.from(x);

test('RMSNorm: x / sqrt(mean(x^2) + eps) * w', () => {
  const out = rmsNorm(v(3, 4), v(1, 2), 1e-5);
  const r = Math.sqrt(12.5 + 1e-5);
  close(out[0], 3 / r);
  close(out[1], 8 / r);
  const unit = rmsNorm(v(3, 4), v(1, 1), 0);
  close(unit[0], 0.848528137423857, 1e-12);
  close(unit[1], 1.131370849898476, 1e-12);
});

test('linear uses HF [out, in] layout and adds the bias', () => {
  const w = v(1, 2, 3, 4, 5, 6); // 2 x 3
  const y = linear(w, 2, v(1, 0, -1), v(10, 20));
  close(y[0], 1 - 3 + 10);
  close(y[1], 4 - 6 + 20);
});

test('SiLU', () => {
  close(silu(0), 0);
  close(silu(1), 1 / (1 + Math.exp(-1)));
  close(silu(-2), -2 / (1 + Math.exp(2)));
});

test('RoPE inverse frequencies without scaling: theta^(-2i/d)', () => {
  const f = ropeInverseFrequencies(8, 10000, null);
  close(f[0], 1);
  close(f[1], 0.1);
  close(f[2], 0.01);
  close(f[3], 0.001);
});

test('Llama-3 rope_scaling frequencies, derived by hand', () => {
  // head_dim 8, theta 10000: base 1, 0.1, 0.01, 0.001; wavelengths 2pi/f = 6.28, 62.8, 628, 6283.
  // old_len 64, low 1, high 4 -> low_freq_wavelen 64, high_freq_wavelen 16, factor 8.
  const f = ropeInverseFrequencies(8, 10000, {
    factor: 8,
    lowFreqFactor: 1,
    highFreqFactor: 4,
    originalMaxPositionEmbeddings: 64,
  });
  close(f[0], 1); // 6.28 < 16: high frequency, unchanged
  // 16 <= 62.8 <= 64: smoothed. smooth = (64/62.83 - 1)/(4 - 1) = (6.4/(2 pi) - 1)/3 = 0.0061972
  // f = (1 - s) * 0.1 / 8 + s * 0.1 = 0.1 * (0.125 + 0.875 s) = 0.0130422
  close(f[1], 0.1 * (0.125 + 0.875 * ((6.4 / (2 * Math.PI) - 1) / 3)));
  close(f[1], 0.0130422, 1e-7);
  close(f[2], 0.01 / 8); // 628 > 64: low frequency, divided by factor
  close(f[3], 0.001 / 8);
});

test('RoPE rotate_half pairs (i, i + d/2) on a known vector', () => {
  const inv = v(1, 0.01);
  const out = applyRope(v(1, 2, 3, 4), 1, inv);
  close(out[0], Math.cos(1) - 3 * Math.sin(1));
  close(out[2], 3 * Math.cos(1) + Math.sin(1));
  close(out[1], 2 * Math.cos(0.01) - 4 * Math.sin(0.01));
  close(out[3], 4 * Math.cos(0.01) + 2 * Math.sin(0.01));
  assert.deepEqual(applyRope(v(1, 2, 3, 4), 0, inv), v(1, 2, 3, 4));
  // q.k after RoPE depends only on the relative position.
  const q = v(0.3, -1, 2, 0.5);
  const k = v(1, 0.2, -0.7, 1.1);
  const dot = (a: Float64Array, b: Float64Array) => a.reduce((s, x, i) => s + x * b[i], 0);
  close(dot(applyRope(q, 7, inv), applyRope(k, 3, inv)), dot(applyRope(q, 4, inv), applyRope(k, 0, inv)), 1e-12);
});

test('causal softmax attention on a one-head toy', () => {
  const q = [v(5, 5), v(2, 0)];
  const k = [v(1, 0), v(0, 0)];
  const vals = [v(1, 10), v(3, -2)];
  const out = causalAttention(q, k, vals);
  assert.deepEqual(out[0], v(1, 10)); // the first position sees only itself
  // scores at t=1: [2/sqrt2, 0] -> p0 = e^sqrt2 / (e^sqrt2 + 1)
  const p0 = Math.exp(Math.SQRT2) / (Math.exp(Math.SQRT2) + 1);
  close(out[1][0], p0 * 1 + (1 - p0) * 3);
  close(out[1][1], p0 * 10 + (1 - p0) * -2);
});
