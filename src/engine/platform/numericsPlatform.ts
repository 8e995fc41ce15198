/**
 * Reads this machine's numerics platform (see contract/numericsPlatform.ts): onnxruntime's version
 * and the kernel families its CPU code dispatches to, derived from the processor's flags the way
 * onnxruntime's MLAS chooses them at start-up.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as ort from 'onnxruntime-node';
import type { NumericsPlatform } from '../../contract';
import { INT8_PATH_ENV, int8PathFor } from './int8Path';

/** The flags that move MLAS's choice of kernels (Linux /proc/cpuinfo names). */
const DECIDING_FLAGS = new Set([
  'sse4_1', 'avx', 'avx2', 'fma', 'f16c',
  'avx512f', 'avx512bw', 'avx512dq', 'avx512vl', 'avx512_vnni', 'avx_vnni', 'avx512_bf16', 'amx_tile', 'amx_int8', 'amx_bf16',
  'asimd', 'asimddp', 'i8mm', 'sve', 'sve2', 'bf16', 'fphp', 'asimdhp',
]);

/**
 * The kernel families for a processor with these flags. x64: MLAS runs float32 GEMMs with its
 * AVX-512F kernels when present, else FMA3 (AVX2 + FMA), else AVX, else SSE; int8 GEMMs with AMX,
 * AVX-512 VNNI, AVX-512 core (BW + DQ + VL), AVX-VNNI, AVX2, else SSE. arm64: NEON for float32;
 * i8mm, else dot-product, else plain NEON for int8.
 */
export function kernelFamilies(arch: string, flags: ReadonlySet<string>): { f32Kernels: string; int8Kernels: string } {
  const has = (...names: string[]) => names.every((n) => flags.has(n));
  if (arch === 'x64' || arch === 'ia32') {
    const f32Kernels = has('avx512f') ? 'avx512f' : has('avx2', 'fma') ? 'fma3' : has('avx') ? 'avx' : 'sse';
    const int8Kernels = has('amx_tile', 'amx_int8')
      ? 'amx'
      : has('avx512_vnni', 'avx512bw', 'avx512dq', 'avx512vl')
        ? 'avx512-vnni'
        : has('avx512bw', 'avx512dq', 'avx512vl')
          ? 'avx512-core'
          : has('avx_vnni', 'avx2')
            ? 'avx-vnni'
            : has('avx2')
              ? 'avx2'
              : 'sse';
    return { f32Kernels, int8Kernels };
  }
  if (arch === 'arm64') {
    return { f32Kernels: 'neon', int8Kernels: has('i8mm') ? 'neon-i8mm' : has('asimddp') ? 'neon-dotprod' : 'neon' };
  }
  // Other processors: the architecture alone is what we can state.
  return { f32Kernels: `${arch}-default`, int8Kernels: `${arch}-default` };
}

/** The flags of /proc/cpuinfo's first processor ('flags' on x86, 'Features' on Arm); empty elsewhere. */
export function cpuFlags(cpuinfo: string): Set<string> {
  const line = /^(?:flags|Features)\s*:\s*(.*)$/m.exec(cpuinfo);
  return new Set(line ? line[1].trim().split(/\s+/) : []);
}

function readCpuinfo(): string {
  try {
    // A regular file of a few kilobytes per core on Linux; absent on macOS and Windows.
    return fs.readFileSync('/proc/cpuinfo', 'utf8').slice(0, 1 << 20);
  } catch {
    return '';
  }
}

let cached: NumericsPlatform | undefined;

/** This machine's numerics platform (read once per process). */
export function numericsPlatform(): NumericsPlatform {
  if (cached) return cached;
  const flags = cpuFlags(readCpuinfo());
  const arch = process.arch;
  const kernels = kernelFamilies(arch, flags);
  cached = {
    onnxruntime: ort.env.versions.node ?? ort.env.versions.common,
    arch,
    cpu: os.cpus()[0]?.model.trim() || 'unknown',
    ...kernels,
    int8Path: int8PathFor(kernels.int8Kernels, process.env[INT8_PATH_ENV]),
    features: [...flags].filter((f) => DECIDING_FLAGS.has(f)).sort(),
  };
  return cached;
}
