/**
 * Whether a stored account still belongs to its record: an account is computed from the record's
 * outputs at the time `explain` ran, so a records.jsonl edited since (an output changed, a
 * correct attempt added or removed) can leave mechanism.jsonl explaining outputs the run no longer
 * holds. The account stores the divergence it explains (probe, attempt, position, the two tokens,
 * the shared text's end), so it is compared with the divergence the record gives now; no model
 * pass is needed, and accounts written before this check read as they are.
 */
import type { MechanismRecord, MechanismToken } from '../../contract';
import type { QuestionDivergence } from './divergence';

/** At most `n` characters of untrusted text, quoted, for a one-line message. */
function quoted(text: string, n = 40): string {
  return JSON.stringify(text.length <= n ? text : `…${text.slice(text.length - n + 1)}`);
}

function describeStored(a: MechanismRecord): string {
  if (a.skipped) return `skipped (${a.skipped})`;
  const token = (t: MechanismToken | undefined) => (t ? `${t.id} ${quoted(t.text)}` : 'none');
  return `token ${a.position} against ${a.probe} attempt ${a.attempt}: deployed ${token(a.deployed)}, correct ${token(a.gold)}, after ${quoted(a.sharedTail ?? '')}`;
}

function describeNow(now: QuestionDivergence, decode: (ids: number[]) => string, sharedTail: string): string {
  if ('skipped' in now) return `skipped (${now.skipped})`;
  return `token ${now.position} against ${now.probe} attempt ${now.attempt}: deployed ${now.d} ${quoted(decode([now.d]))}, correct ${now.g} ${quoted(decode([now.g]))}, after ${quoted(sharedTail)}`;
}

/**
 * How `stored` differs from what the record gives now (`now`, with its shared text's last
 * characters as explain stores them), or null when it still describes the record.
 */
export function staleAccountDifference(stored: MechanismRecord, now: QuestionDivergence, decode: (ids: number[]) => string, sharedTail: string): string | null {
  const same =
    'skipped' in now
      ? stored.skipped === now.skipped
      : stored.skipped === undefined &&
        stored.probe === now.probe &&
        stored.attempt === now.attempt &&
        stored.position === now.position &&
        stored.deployed?.id === now.d &&
        stored.gold?.id === now.g &&
        (stored.sharedTail === undefined || stored.sharedTail === sharedTail);
  return same ? null : `the account explains ${describeStored(stored)}; records.jsonl's outputs now give ${describeNow(now, decode, sharedTail)}`;
}
