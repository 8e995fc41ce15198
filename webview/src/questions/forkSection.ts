/**
 * The detail pane's "Where the answer forks" section, for a run with the fork probe
 * (`record.deployedTokens`, and `record.fork` on questions the deployment does not realize): the
 * deployed output token by token, each shaded by the entropy it was chosen at (a legend gives the
 * scale), the positions forked marked ✓ / ✗, the earliest saving fork outlined; the forks as a
 * list, the saving one highlighted, and clicking one shows its branch (the deployed prefix, the
 * alternative token, the continuation). Every piece of model text goes in as a text node.
 */
import { h, replaceChildren } from '../common/element';
import type { DeployedTokens, ForeclosureResult, ForkBranch, ForkResult, ForkTry } from '../../../src/contract';
import { entropyBand, ENTROPY_BANDS } from './entropyBand';

function answerText(answer: string | null | undefined): string {
  return answer === null || answer === undefined || answer === '' ? '∅' : answer;
}

/** A probability from its log: two significant digits below 1% and two decimals above 99%, so neither end reads as 0% or 100%. */
export function percent(logprob: number): string {
  if (!Number.isFinite(logprob)) return '–';
  const p = Math.exp(logprob) * 100;
  if (p < 1) return `${p.toPrecision(2)}%`;
  return p > 99 ? `${Math.min(p, 99.99).toFixed(2)}%` : `${p.toFixed(1)}%`;
}

/** A token's text as shown inside a sentence: quoted, with line breaks and tabs made visible. */
export function tokenText(text: string): string {
  return `“${text.replace(/\n/g, '⏎').replace(/\t/g, '⇥')}”`;
}

function markOf(correct: boolean): HTMLElement {
  return correct
    ? h('span', { class: 'mark mark-correct', title: 'reaches the gold answer' }, '✓', h('span', { class: 'sr-only' }, ' reaches the answer'))
    : h('span', { class: 'mark mark-wrong', title: 'does not reach the gold answer' }, '✗', h('span', { class: 'sr-only' }, ' does not reach it'));
}

function legend(): HTMLElement {
  const items = ENTROPY_BANDS.map((band, i) => h('span', { class: 'fork-legend-item' }, h('span', { class: `fork-token entropy-${i}`, 'aria-hidden': 'true' }, '  '), ` ${band.label}`));
  return h('p', { class: 'fork-legend muted' }, 'Entropy of the distribution each token was chosen from (nats): ', ...items, h('span', { class: 'fork-legend-item' }, h('span', { class: 'fork-site fork-site-saves' }, '✓'), '/', h('span', { class: 'fork-site' }, '✗'), ' a fork tried there saves the answer / does not'));
}

/** Forks grouped by the position they replace. */
function forksAt(fork: ForkResult | undefined): Map<number, number[]> {
  const at = new Map<number, number[]>();
  (fork?.forks ?? []).forEach((f, i) => at.set(f.position, [...(at.get(f.position) ?? []), i]));
  return at;
}

/** The deployed output token by token, shaded by entropy, with a mark after each forked position and the foreclosure window's tokens outlined. */
function shadedOutput(tokens: DeployedTokens, fork: ForkResult | undefined, foreclosure: ForeclosureResult | undefined): HTMLElement {
  const window = foreclosure?.outcome === 'window' ? foreclosure.window : null;
  const pre = h('pre', { class: 'text output fork-output' });
  const at = forksAt(fork);
  const earliest = fork && fork.earliest !== null ? fork.forks[fork.earliest] : undefined;
  tokens.steps.forEach((step, position) => {
    const p = step.top?.[0]?.[0] === step.token ? ` · p ${percent(step.top[0][1])}` : '';
    const inWindow = !!window && position >= window.from && position < window.to;
    const span = h('span', { class: `fork-token entropy-${entropyBand(step.entropy)}${earliest?.position === position ? ' fork-earliest' : ''}${inWindow ? ' fork-in-window' : ''}`, title: `token ${position} · entropy ${Number.isFinite(step.entropy) ? step.entropy.toFixed(3) : '–'} nats${p}${inWindow ? ' · in the foreclosure window' : ''}` }, step.text);
    pre.appendChild(span);
    const tried = at.get(position);
    if (tried) {
      const saves = tried.some((i) => fork!.forks[i].saves);
      pre.appendChild(h('span', { class: `fork-site${saves ? ' fork-site-saves' : ''}`, title: `${tried.length} fork${tried.length === 1 ? '' : 's'} tried at token ${position}: ${saves ? 'one saves the answer' : 'none saves the answer'}` }, saves ? '✓' : '✗', h('span', { class: 'sr-only' }, saves ? ' a fork here saves the answer ' : ' no fork here saves the answer ')));
    }
  });
  return pre;
}

function deployedPrefix(tokens: DeployedTokens | undefined, position: number): string {
  return (tokens?.steps ?? []).slice(0, position).map((s) => s.text).join('');
}

function branchView(branch: ForkBranch, how: string, prefix: string, f: ForkTry): HTMLElement {
  return h('div', { class: 'fork-branch' },
    h('div', { class: 'fork-branch-head' }, `${how}: answer `, h('span', { class: 'answer' }, answerText(branch.answer)), ' ', markOf(branch.correct), h('span', { class: 'muted' }, ` · ${branch.tokens} tokens${branch.truncated ? ' · truncated' : ''}`)),
    h('pre', { class: 'text output fork-branch-text' },
      h('span', { class: 'fork-prefix' }, prefix),
      h('mark', { class: 'fork-alternative', title: `the alternative token, instead of ${tokenText(f.deployed.text)}` }, f.alternative.text),
      branch.continuation));
}

/** One fork's branch: the deployed prefix, the alternative token highlighted, then each continuation. */
function forkDetail(f: ForkTry, tokens: DeployedTokens | undefined): HTMLElement {
  const prefix = deployedPrefix(tokens, f.position);
  return h('div', { class: 'fork-detail', 'aria-live': 'polite' },
    h('p', {}, `Fork at token ${f.position} (entropy ${f.entropy.toFixed(3)} nats, chosen by the ${f.arms.join(' and ')} arm${f.arms.length === 1 ? '' : 's'}): `,
      h('span', { class: 'fork-deployed' }, tokenText(f.deployed.text)), ` (p ${percent(f.deployed.logprob)}) → `,
      h('span', { class: 'fork-alt-text' }, tokenText(f.alternative.text)), ` (p ${percent(f.alternative.logprob)})`),
    branchView(f.greedy, 'Greedy continuation', prefix, f),
    branchView(f.sample, 'Sampled continuation', prefix, f));
}

function forkSentence(fork: ForkResult): string {
  const positions = new Set(fork.forks.map((f) => f.position)).size;
  const head = `${fork.forks.length} fork${fork.forks.length === 1 ? '' : 's'} tried at ${positions} of ${fork.eligible} eligible positions (budget ${fork.budget}).`;
  if (!fork.saved || fork.earliest === null) return `${head} No fork reaches the gold answer.`;
  const e = fork.forks[fork.earliest];
  const by = [fork.savedBy.entropy ? 'a highest-entropy position' : '', fork.savedBy.random ? 'a random position' : ''].filter(Boolean).join(' and ');
  return `${head} Saved by a fork at ${by}. Earliest saving fork: token ${e.position}, ${tokenText(e.deployed.text)} (p ${percent(e.deployed.logprob)}) → ${tokenText(e.alternative.text)} (p ${percent(e.alternative.logprob)}).`;
}

/** The list of forks tried; clicking one shows its branch in `detail`. */
function forkList(fork: ForkResult, tokens: DeployedTokens | undefined, detail: HTMLElement): HTMLElement {
  const list = h('ol', { class: 'fork-list' });
  const buttons: HTMLButtonElement[] = [];
  const choose = (i: number) => {
    buttons.forEach((b, j) => b.setAttribute('aria-pressed', String(i === j)));
    replaceChildren(detail, forkDetail(fork.forks[i], tokens));
  };
  fork.forks.forEach((f, i) => {
    const earliest = fork.earliest === i;
    const b = h('button', { type: 'button', class: `fork-row${f.saves ? ' fork-saves' : ''}${earliest ? ' fork-earliest-row' : ''}`, 'aria-pressed': 'false', title: 'Show this fork\'s branch' },
      h('span', { class: 'fork-pos' }, `token ${f.position}`),
      h('span', { class: 'fork-arm muted' }, f.arms.join('+')),
      h('span', { class: 'fork-swap' }, tokenText(f.deployed.text), ' → ', h('span', { class: 'fork-alt-text' }, tokenText(f.alternative.text))),
      h('span', { class: 'fork-result' }, 'greedy ', markOf(f.greedy.correct), ' sample ', markOf(f.sample.correct)),
      earliest ? h('span', { class: 'chip fork-earliest-chip' }, 'earliest saving fork') : null);
    b.addEventListener('click', () => choose(i));
    buttons.push(b);
    list.appendChild(h('li', {}, b));
  });
  if (fork.earliest !== null && fork.forks[fork.earliest]) choose(fork.earliest);
  return list;
}

export function forkSection(tokens: DeployedTokens | undefined, fork: ForkResult | undefined, foreclosure?: ForeclosureResult): HTMLElement | null {
  const hasTokens = !!tokens && Array.isArray(tokens.steps) && tokens.steps.length > 0;
  const hasForks = !!fork && Array.isArray(fork.forks);
  if (!hasTokens && !hasForks) return null;
  const detail = h('div', { class: 'fork-detail-slot' });
  return h('section', { class: 'detail-section fork' },
    h('h3', {}, 'Where the answer forks ', h('span', { class: 'muted' }, hasForks ? `(fork probe, B = ${fork!.budget})` : '(token record; the deployment realizes this question, so no forks were tried)')),
    hasForks ? h('p', { class: 'fork-line' }, forkSentence(fork!)) : null,
    hasTokens ? legend() : null,
    hasTokens && foreclosure?.outcome === 'window' && foreclosure.window ? h('p', { class: 'fork-window-line muted' }, `Tokens outlined with a dashed line: the foreclosure window (tokens ${foreclosure.window.from} to ${foreclosure.window.to - 1}), where the answer stops being reachable.`) : null,
    hasTokens ? shadedOutput(tokens!, hasForks ? fork : undefined, foreclosure) : null,
    hasForks && fork!.forks.length > 0 ? forkList(fork!, hasTokens ? tokens : undefined, detail) : null,
    hasForks ? detail : null);
}
