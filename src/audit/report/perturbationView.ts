/**
 * The perturbation table (results/perturbationTable.ts) as a TableView: one row per run, rates as
 * "42.0% [35.1, 49.2] (n = 20)", each overlap as "J 0.40 [0.21, 0.62] Wilson (both …)", or its counts alone under 20 questions in the union, CSV with every number in
 * its own column.
 */
import type { Rate } from '../../contract';
import type { PerturbationRow, PerturbationTable, ProbeOnGainSet, ProbeOverlap } from '../results';
import type { TableView } from './tablesReport';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const rateText = (r: Rate) => (r.n === 0 ? '—' : `${pct(r.rate)} [${(100 * r.ci.lo).toFixed(1)}, ${(100 * r.ci.hi).toFixed(1)}] (n = ${r.n})`);
const marked = (name: string, finished: boolean) => (finished ? name : `${name} (unfinished)`);

function probeText(p: ProbeOnGainSet | undefined): string {
  return p ? rateText(p.reached) : '—';
}

function costText(p: ProbeOnGainSet | undefined): string {
  return p ? `${p.perGeneration.tokens.toFixed(1)} / ${Math.round(p.perGeneration.blockApplications)}` : '—';
}

function blindText(p: ProbeOnGainSet | undefined): string {
  if (!p) return '—';
  if (!p.blind) return `not at k < B (${p.budget})`;
  const entries = Object.entries(p.blind);
  return entries.length === 0 ? '—' : entries.map(([s, r]) => `${s} ${rateText(r)}`).join('; ');
}

function overlapText(o: ProbeOverlap | undefined): string {
  if (!o) return '—';
  // Without an interval the index itself is not shown: counts only (a union of 1 gives J 1 or 0).
  const j = o.jaccard === null || !o.interval ? '' : `J ${o.jaccard.toFixed(2)} [${o.interval.lo.toFixed(2)}, ${o.interval.hi.toFixed(2)}] Wilson `;
  return `${j}(both ${o.both}, only ${o.a} ${o.onlyA}, only ${o.b} ${o.onlyB})${o.why ? `; ${o.why}` : ''}`;
}

const probeOf = (r: PerturbationRow, name: string) => r.probes.find((p) => p.probe === name);
const overlapOf = (r: PerturbationRow, a: string, b: string) => r.overlaps.find((o) => o.a === a && o.b === b);

export function perturbationView(t: PerturbationTable): TableView {
  const pairs: [string, string][] = [['perturb', 'sample'], ['perturb', 'routes'], ['sample', 'routes']];
  const names = ['perturb', 'sample', 'routes'];
  return {
    id: 'perturbation',
    title: 'Residual perturbation vs sampling and random routes on the gain set',
    notes: [`Rule: ${t.rule}.`],
    headers: ['model', 'dataset', 'gain set', 'attempts compared (k)', ...names.map((p) => `reach · ${p}`), ...names.map((p) => `${p} tokens / block applications per generation`), ...names.map((p) => `answer-blind · ${p}`), ...pairs.map(([a, b]) => `overlap ${a} · ${b}`)],
    rows: t.rows.map((r) => [
      marked(r.model, r.finished),
      r.dataset,
      `${r.gainSet} of ${r.audited}`,
      String(r.attempts),
      ...names.map((p) => probeText(probeOf(r, p))),
      ...names.map((p) => costText(probeOf(r, p))),
      ...names.map((p) => blindText(probeOf(r, p))),
      ...pairs.map(([a, b]) => overlapText(overlapOf(r, a, b))),
    ]),
    csvHeaders: [
      'folder', 'model', 'dataset', 'finished', 'audited', 'gain_set', 'k',
      ...names.flatMap((p) => [`${p}_budget`, `${p}_reach`, `${p}_reach_lo`, `${p}_reach_hi`, `${p}_tokens_per_generation`, `${p}_block_applications_per_generation`]),
      ...pairs.flatMap(([a, b]) => [`jaccard_${a}_${b}`, `jaccard_${a}_${b}_lo`, `jaccard_${a}_${b}_hi`, `both_${a}_${b}`, `only_${a}_vs_${b}`, `only_${b}_vs_${a}`]),
    ],
    csvRows: t.rows.map((r) => [
      r.folder, r.model, r.dataset, r.finished, r.audited, r.gainSet, r.attempts,
      ...names.flatMap((p) => {
        const x = probeOf(r, p);
        return x ? [x.budget, x.reached.rate, x.reached.ci.lo, x.reached.ci.hi, x.perGeneration.tokens, x.perGeneration.blockApplications] : [null, null, null, null, null, null];
      }),
      ...pairs.flatMap(([a, b]) => {
        const o = overlapOf(r, a, b);
        return o ? [o.jaccard, o.interval?.lo ?? null, o.interval?.hi ?? null, o.both, o.onlyA, o.onlyB] : [null, null, null, null, null, null];
      }),
    ]),
    apart: t.missing.map((m) => `Not in the table: ${m.folder} — ${m.reason}`),
  };
}
