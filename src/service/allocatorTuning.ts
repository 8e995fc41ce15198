/**
 * Environment for an engine process: glibc's allocator keeps the memory it frees for the next
 * call instead of unmapping it.
 *
 * onnxruntime allocates each call's activations afresh (its per-session arenas are off: they kept
 * every session's peak, 5.5 GB instead of 2.5 GB on the Qwen2.5-0.5B shape). glibc serves blocks
 * above its mmap threshold (at most 32 MB) with fresh mappings and unmaps them on free, so every
 * large prefill call paid page faults for its whole activation memory again. Measured on that
 * shape, 2 threads: one 960-token prompt 10.4–16.1 s → 2.7–3.8 s; eight 120-token prompts in one
 * call 3.9–4.7 s → 2.5 s. Other allocators (musl, macOS, Windows) ignore these variables; values the
 * user set win.
 */
export const ENGINE_ALLOCATOR_ENV: Readonly<Record<string, string>> = {
  // Never serve an allocation with its own mapping: freed blocks return to the heap and are reused.
  MALLOC_MMAP_MAX_: '0',
  // Never give the heap's free top back to the system between calls (64 GiB: in effect never).
  MALLOC_TRIM_THRESHOLD_: String(64 * 2 ** 30),
};
