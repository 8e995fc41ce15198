/**
 * The detail pane's "Why not realized" section for a failure-set question explained by
 * `reach-audit explain`: the shared context with the deployed token d and the correct path's token
 * g, a strip over the blocks of the lens difference g − d and each block's attention and MLP
 * attribution (negative: pushes the answer away), and beside it the repair scan's row for the same
 * blocks. All model text goes in as text; cell shading goes through the CSSOM (the CSP allows it).
 */
import { h } from '../common/element';
import type { MechanismRecord, QuestionRecord } from '../../../src/contract';

function signed(x: number): string {
  return (x >= 0 ? '+' : '−') + Math.abs(x).toFixed(2);
}

/** Shows whitespace in a token (a space, a newline) so two tokens can be told apart. */
function tokenText(text: string): string {
  return text.replace(/ /g, '␣').replace(/\n/g, '⏎').replace(/\t/g, '⇥');
}

/** A value cell shaded by sign and size against the row's largest magnitude. */
function valueCell(x: number, scale: number, title: string): HTMLElement {
  const cell = h('td', { class: `mech-cell ${x < 0 ? 'mech-neg' : 'mech-pos'}`, title }, signed(x));
  const strength = scale > 0 ? Math.min(1, Math.abs(x) / scale) : 0;
  cell.style.setProperty('--mech-strength', `${Math.round(strength * 70)}%`);
  return cell;
}

function row(label: string, title: string, values: readonly number[], what: (b: number) => string, suppressor?: number | null): HTMLElement {
  const scale = Math.max(...values.map(Math.abs), 1e-9);
  return h('tr', {}, h('th', { scope: 'row', title }, label), ...values.map((v, b) => {
    const cell = valueCell(v, scale, `block ${b}: ${what(b)} ${signed(v)}`);
    if (suppressor === b) cell.classList.add('mech-suppressor');
    return cell;
  }));
}

export function whyNotRealizedSection(account: MechanismRecord | undefined, record: QuestionRecord): HTMLElement | null {
  if (!account) return null;
  const title = h('h3', {}, 'Why not realized ', h('span', { class: 'muted' }, '(reach-audit explain)'));
  if (account.skipped || !account.blocks || !account.deployed || !account.gold) {
    const why = { 'no-correct-attempt': 'no correct attempt is stored', 'same-tokens': 'the correct attempt has the deployed output\'s tokens', 'no-eos': 'one output ends where the other goes on and the model names no end token' }[account.skipped ?? 'no-eos'];
    return h('section', { class: 'detail-section mechanism' }, title, h('p', { class: 'muted' }, `No account: ${why}.`));
  }
  const blocks = account.blocks;
  const context = h('p', { class: 'mech-context' },
    h('span', { class: 'muted' }, `At generated token ${account.position ?? 0}, after `),
    h('code', { class: 'mech-tail' }, account.sharedTail ?? ''),
    h('span', { class: 'muted' }, ' the deployment says '),
    h('code', { class: 'mech-token mech-d', title: `token id ${account.deployed.id}` }, tokenText(account.deployed.text)),
    h('span', { class: 'muted' }, ' where the correct path says '),
    h('code', { class: 'mech-token mech-g', title: `token id ${account.gold.id}` }, tokenText(account.gold.text)),
    h('span', { class: 'muted' }, ` (${account.probe ?? 'probe'} attempt #${(account.attempt ?? 0) + 1}).`));

  const head = h('tr', {}, h('th', { scope: 'col' }, 'block'), ...blocks.map((_, b) => h('th', { scope: 'col', class: 'num' }, String(b))));
  const lens = row('lens g − d', 'logit(g) − logit(d) of the residual after the block, through the final norm and the unembedding', blocks.map((b) => b.lens), (b) => `lens g − d, rank g ${blocks[b].rankG}, rank d ${blocks[b].rankD}:`);
  const attention = row('attention', "the block's attention output on the g − d direction (final norm's scale frozen)", blocks.map((b) => b.attention), () => 'attention attribution');
  const mlp = row('MLP', "the block's MLP output on the g − d direction (final norm's scale frozen)", blocks.map((b) => b.mlp), () => 'MLP attribution', account.suppressor);
  const ranks = h('tr', {}, h('th', { scope: 'row', title: 'ranks of g and d in the lens after the block' }, 'rank g / d'), ...blocks.map((b) => h('td', { class: 'num muted' }, `${b.rankG}/${b.rankD}`)));
  const scan = record.repair?.correctBySilencedBlock ?? {};
  const scanned = Object.keys(scan).length > 0;
  const repairRow = h('tr', {}, h('th', { scope: 'row', title: 'the repair scan: does silencing this MLP make the answer come out?' }, 'repair scan'), ...blocks.map((_, b) => {
    const v = scan[String(b)];
    return h('td', { class: `num ${v === true ? 'mech-repairs' : 'muted'}`, title: `block ${b}: ${v === true ? 'silencing its MLP repairs the question' : v === false ? 'not repaired' : 'not scanned'}` }, v === true ? '✓' : v === false ? '·' : '–');
  }));
  const table = h('table', { class: 'mini-table mech-strip', 'aria-label': 'Per-block account at the divergence point' }, h('thead', {}, head), h('tbody', {}, lens, ranks, attention, mlp, ...(scanned ? [repairRow] : [])));

  const repairing = Object.keys(scan).filter((k) => scan[k]).map(Number).sort((a, b) => a - b);
  const suppressor = account.suppressor === null || account.suppressor === undefined ? 'No MLP lowers g − d.' : `The MLP of block ${account.suppressor} lowers g − d most (${signed(blocks[account.suppressor].mlp)}).`;
  const repairText = !scanned ? 'The repair scan did not run on it.' : repairing.length === 0 ? 'No silenced MLP repairs it.' : `Silencing the MLP of block ${repairing.join(', ')} repairs it${account.suppressor !== null && account.suppressor !== undefined ? (repairing.includes(account.suppressor) ? ', the suppressor among them' : ', not the suppressor') : ''}.`;
  const topNote = account.top && account.top.id !== account.deployed.id ? ` The context's top token is ${JSON.stringify(account.top.text)}, not d: the output's tokenization differs from what was generated.` : '';
  return h('section', { class: 'detail-section mechanism' },
    title,
    context,
    // A model of many blocks is wider than the pane: the strip scrolls, the pane does not.
    h('div', { class: 'mech-scroll' }, table),
    h('p', { class: 'muted mech-note' }, `${suppressor} ${repairText} Embedding term ${signed(account.embedding ?? 0)}; the terms sum to the last lens value.${topNote}`));
}
