/**
 * What decides an engine's floating-point results besides the model and the settings: onnxruntime's
 * CPU kernels are chosen at load by the processor's instruction set (MLAS dispatches its GEMMs to
 * SSE, AVX, FMA3 or AVX-512 code; int8 products to AVX2, AVX-VNNI, AVX-512 VNNI or AMX code; NEON,
 * dot-product or i8mm code on Arm). Two kernel paths accumulate in different orders and widths, so
 * the same question can decode differently on two machines. Recorded with every run and session.
 */
export interface NumericsPlatform {
  /** onnxruntime-node's version: its kernels change between releases. */
  onnxruntime: string;
  /** process.arch: 'x64', 'arm64', … */
  arch: string;
  /** The processor's name as the OS reports it (information only; the paths below decide). */
  cpu: string;
  /** The kernel family onnxruntime's float32 GEMMs run on this processor ('avx512f', 'fma3', 'neon', …). */
  f32Kernels: string;
  /** The kernel family of its int8 products ('avx512-vnni', 'avx2', 'neon-i8mm', …). */
  int8Kernels: string;
  /**
   * How int8 weights are multiplied here: 'block' (MatMulNBits, per-32 scales) or 'row'
   * (MatMulInteger, per-row activations, 7-bit weights); chosen per instruction set. Absent in runs
   * made before the choice existed, which all took 'block'.
   */
  int8Path?: 'block' | 'row';
  /** The instruction-set flags those two were derived from, sorted. */
  features: string[];
}

/**
 * How two platforms differ in what decides the numbers (the processor's name alone does not), worded
 * for the user; empty when they compute alike.
 */
export function numericsDifferences(a: NumericsPlatform, b: NumericsPlatform): string[] {
  const out: string[] = [];
  if (a.onnxruntime !== b.onnxruntime) out.push(`onnxruntime ${a.onnxruntime} vs ${b.onnxruntime}`);
  if (a.arch !== b.arch) out.push(`architecture ${a.arch} vs ${b.arch}`);
  if (a.f32Kernels !== b.f32Kernels) out.push(`float32 kernels ${a.f32Kernels} vs ${b.f32Kernels}`);
  if (a.int8Kernels !== b.int8Kernels) out.push(`int8 kernels ${a.int8Kernels} vs ${b.int8Kernels}`);
  if ((a.int8Path ?? 'block') !== (b.int8Path ?? 'block')) out.push(`int8 path ${a.int8Path ?? 'block'} vs ${b.int8Path ?? 'block'}`);
  return out;
}

/**
 * The platform as a run records it: the int8 path only when the run's weights are int8 (with F32
 * weights it decides nothing, and leaving it out keeps F32 runs made before the path existed
 * comparable with later ones).
 */
export function numericsFor(platform: NumericsPlatform, weights: string | undefined): NumericsPlatform {
  if (weights === 'int8' || platform.int8Path === undefined) return platform;
  const { int8Path: _unused, ...rest } = platform;
  return rest;
}

/** One line for a platform: "onnxruntime 1.30.0 on x64, float32 fma3, int8 avx2". */
export function describeNumerics(p: NumericsPlatform): string {
  return `onnxruntime ${p.onnxruntime} on ${p.arch}, float32 kernels ${p.f32Kernels}, int8 kernels ${p.int8Kernels}${p.int8Path ? ` (${p.int8Path} path)` : ''}`;
}
