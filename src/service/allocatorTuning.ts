/**
 * Environment for an engine process: glibc's allocator keeps the memory it frees for the next
 * call instead of unmapping it, and asks for transparent huge pages.
 *
 * onnxruntime allocates each call's activations afresh (its per-session arenas are off: they kept
 * every session's peak, 5.5 GB instead of 2.5 GB on the Qwen2.5-0.5B shape). glibc serves blocks
 * above its mmap threshold (at most 32 MB) with fresh mappings and unmaps them on free, so every
 * large prefill call paid page faults for its whole activation memory again. Measured on that
 * shape, 2 threads: one 960-token prompt 10.4–16.1 s → 2.7–3.8 s; eight 120-token prompts in one
 * call 3.9–4.7 s → 2.5 s.
 *
 * Huge pages: decoding reads every weight once per step, 2 GB on that shape, from memory that
 * onnxruntime allocated with malloc. With the kernel's transparent huge pages in `madvise` mode
 * (Debian's default) that memory sits in 4 KB pages unless malloc asks; `glibc.malloc.hugetlb=1`
 * (glibc 2.35+) makes it ask, so a step's reads walk 1,000 times fewer pages. Measured (2 threads,
 * 4 processes each way, alternating): 2.1 GB of the weights in huge pages, batch-1 decode 15.9–19.7
 * → 20.3–21.4 tokens/s, 16 sequences 112–140 → 126–153, peak RSS within 1%.
 *
 * Other allocators (musl, macOS, Windows) ignore these variables, and older glibc the tunable;
 * values the user set win (a user's own GLIBC_TUNABLES replaces this one).
 */
export const ENGINE_ALLOCATOR_ENV: Readonly<Record<string, string>> = {
  // Never serve an allocation with its own mapping: freed blocks return to the heap and are reused.
  MALLOC_MMAP_MAX_: '0',
  // Never give the heap's free top back to the system between calls (64 GiB: in effect never).
  MALLOC_TRIM_THRESHOLD_: String(64 * 2 ** 30),
  // Back malloc's memory with transparent huge pages where the kernel allows it on request.
  GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1',
};
