/**
 * A probe's attempts under `--until-reached`: attempt 0, 1, 2, … until the first correct one. The
 * record holds exactly attempts 0..first correct (or all of them when none is), which is what
 * running them one at a time would give, so a question's record never depends on timing, batching
 * or what else is in flight (determinism per question, resume and shards stay intact).
 *
 * One at a time would leave the engine's batch short of work, so a few attempts run ahead in a
 * window: when attempt j comes back correct, every attempt after j that is still running is
 * cancelled and none is started. Attempts before j always finish (one of them may be correct too,
 * and then it is the first). What the window spends past the first hit is engine work only; the
 * record's cost counts the kept attempts, as a one-at-a-time run would.
 */
import type { Generation, GenerationRequest } from '../../engine';
import type { Attempt } from '../../contract';

/** Attempts of one probe that run at once ahead of the first hit. */
export const UNTIL_REACHED_WINDOW = 2;

/** Thrown by `generate` for an attempt the window cancelled (a lower attempt was correct). */
class Superseded extends Error {}

export async function untilFirstCorrect(
  count: number,
  request: (attempt: number) => GenerationRequest,
  generate: (requests: GenerationRequest[], signal: AbortSignal) => Promise<Generation[]>,
  grade: (g: Generation, attempt: number) => Attempt,
  window = UNTIL_REACHED_WINDOW,
): Promise<{ attempts: Attempt[]; gens: Generation[] }> {
  const attempts: Attempt[] = [];
  const gens: Generation[] = [];
  const running = new Map<number, AbortController>();
  let firstHit = count;
  let next = 0;
  const run = async (a: number): Promise<void> => {
    const own = new AbortController();
    running.set(a, own);
    let g: Generation;
    try {
      [g] = await generate([request(a)], own.signal).catch((err: unknown) => {
        throw own.signal.aborted ? new Superseded() : err;
      });
    } finally {
      running.delete(a);
    }
    attempts[a] = grade(g, a);
    gens[a] = g;
    if (attempts[a].correct && a < firstHit) {
      firstHit = a;
      for (const [b, c] of running) if (b > a) c.abort();
    }
  };
  const worker = async (): Promise<void> => {
    // firstHit is `count` until an attempt is correct: nothing at or after a hit is started.
    while (next < firstHit) {
      const a = next++;
      try {
        await run(a);
      } catch (err) {
        if (!(err instanceof Superseded)) throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(window, count)) }, worker));
  const kept = Math.min(count, firstHit + 1);
  return { attempts: attempts.slice(0, kept), gens: gens.slice(0, kept) };
}
