/**
 * Plain-text views of mechanism.jsonl for the terminal: one strip per question (the two tokens in
 * context, the lens difference and each block's attention and MLP attribution, the repair scan's
 * result beside it) and the run table (where the suppressor falls, and its agreement with the
 * repair scan against chance).
 */
import type { MechanismAgreement, MechanismRecord, MechanismSummary, QuestionRecord } from '../../contract';
import { repairingBlocks } from '../mechanism';

function num(x: number): string {
  return (x >= 0 ? '+' : '') + x.toFixed(2);
}

function row(label: string, cells: readonly string[]): string {
  return `  ${label.padEnd(10)}${cells.map((c) => c.padStart(7)).join('')}`;
}

/** The longest text quoted in a strip: an edited file's 150 MB context is shown by its end, not printed whole. */
const MAX_QUOTED = 200;

/** `text` as a JSON string, cut to its last MAX_QUOTED characters (marked) when longer. */
function quoted(text: string): string {
  return text.length > MAX_QUOTED ? `…${JSON.stringify(text.slice(-MAX_QUOTED))} (last ${MAX_QUOTED} of ${text.length} characters)` : JSON.stringify(text);
}

export function mechanismStrip(account: MechanismRecord, record: QuestionRecord | undefined): string {
  if (account.skipped || !account.blocks || !account.deployed || !account.gold) return `${account.id}: no account (${account.skipped ?? 'incomplete'})`;
  const blocks = account.blocks;
  const top = account.top && account.top.id === account.deployed.id ? ' (the top token)' : account.top ? ` (top token ${quoted(account.top.text)})` : '';
  const { repairing, scanned } = repairingBlocks(record);
  const repair = scanned === 0 ? 'no repair scan' : repairing.length === 0 ? 'no silenced MLP repairs it' : `silencing MLP ${repairing.join(', ')} repairs it`;
  return [
    `${account.id}: at generated token ${account.position} after ${quoted(account.sharedTail ?? '')}`,
    `  deployed d = ${quoted(account.deployed.text)}${top}, correct path g = ${quoted(account.gold.text)} (${account.probe} attempt ${account.attempt})`,
    row('block', blocks.map((_, b) => String(b))),
    row('lens g−d', blocks.map((b) => num(b.lens))),
    row('rank g', blocks.map((b) => String(b.rankG))),
    row('rank d', blocks.map((b) => String(b.rankD))),
    row('attention', blocks.map((b) => num(b.attention))),
    row('MLP', blocks.map((b) => num(b.mlp))),
    `  embedding ${num(account.embedding ?? 0)}; suppressor: ${account.suppressor === null || account.suppressor === undefined ? 'none (no MLP lowers g−d)' : `MLP ${account.suppressor}`}; repair scan: ${repair}`,
  ].join('\n');
}

function agreementLine(label: string, a: MechanismAgreement | undefined): string {
  if (!a) return `  ${label}: nothing to compare`;
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const p = a.p < 1e-4 ? a.p.toExponential(1) : a.p.toFixed(4);
  const how = a.permutations === 'exact' ? 'exact' : `${a.permutations.toLocaleString('en-US')} seeded permutations`;
  return `  ${label}: ${a.agree}/${a.n} = ${pct(a.rate)} [95% ${pct(a.ci.lo)}–${pct(a.ci.hi)}], ${a.chanceExpected.toFixed(1)} expected under the null, p = ${p} (${how})`;
}

export function mechanismTable(s: MechanismSummary): string {
  const blocks = s.suppressorCounts.map((_, b) => String(b));
  return [
    `Suppressing MLP over the failure set: ${s.explained} explained of ${s.failureSetSize}${s.skipped ? ` (${s.skipped} without an account)` : ''}`,
    row('block', blocks),
    row('questions', s.suppressorCounts.map(String)),
    `  no suppressing MLP: ${s.noSuppressor}; the deployed token is the context's top token in ${(100 * s.topIsDeployed).toFixed(1)}% of accounts`,
    'Agreement with the repair scan (null: the same suppressors shuffled across the questions, each keeping its repair result; it assumes the questions exchangeable: questions of one kind sharing late (or early) suppressors and repairs agree beyond it without any link, see docs/design/statistics.md "Calibration"):',
    agreementLine(`suppressor is the identified block ${s.identifiedBlock ?? '—'}, on the questions it repairs`, s.withIdentified),
    agreementLine("a block that repairs the question", s.withRepairing),
  ].join('\n');
}
