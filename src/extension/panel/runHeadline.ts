/**
 * The headline numbers of a finished run, read from its summary.json (record contract of the audit
 * issue) and worded for the Runs view. Pure functions: no vscode, no file system, so they are unit
 * tested directly. Unknown or malformed fields are dropped, never guessed.
 */

/** A rate with its 95% interval (Wilson for rates, as the design says). */
export interface RateWithInterval {
  rate: number;
  /** [low, high] in 0..1, when the summary gives one. */
  ci?: [number, number];
  /** Questions the rate is computed over, when known. */
  n?: number;
  /** Questions that count as successes, when the summary gives them. */
  successes?: number;
}

export interface BlindRate extends RateWithInterval {
  probe: string;
  selector: string;
}

export interface RepairHeadline {
  failureSetSize: number;
  identifiedBlock?: number;
  repairRate?: RateWithInterval;
  damageRate?: number;
}

export interface RunHeadline {
  n: number;
  realized?: RateWithInterval;
  /** One entry per probe, in the order the summary lists them. */
  reachable: { probe: string; rate: RateWithInterval }[];
  /** Reachable by any probe: the reachable ceiling. */
  reachableAny?: RateWithInterval;
  blind: BlindRate[];
  repair?: RepairHeadline;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function finiteNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function readInterval(value: unknown): [number, number] | undefined {
  if (Array.isArray(value) && value.length === 2) {
    const [low, high] = [finiteNumber(value[0]), finiteNumber(value[1])];
    if (low !== undefined && high !== undefined) return [low, high];
  }
  if (isObject(value)) {
    const low = finiteNumber(value.low ?? value.lo ?? value.lower);
    const high = finiteNumber(value.high ?? value.hi ?? value.upper);
    if (low !== undefined && high !== undefined) return [low, high];
  }
  return undefined;
}

function readRate(value: unknown, fallbackN?: number): RateWithInterval | undefined {
  if (!isObject(value)) return undefined;
  const rate = finiteNumber(value.rate);
  if (rate === undefined) return undefined;
  const n = finiteNumber(value.n) ?? fallbackN;
  const successes = finiteNumber(value.successes);
  return {
    rate,
    ci: readInterval(value.ci),
    ...(n === undefined ? {} : { n }),
    ...(successes === undefined ? {} : { successes }),
  };
}

/**
 * Reads the parts of summary.json the Runs view shows. Throws an Error naming the missing field
 * when the file is not a summary at all (no `n`), so the view can say what is wrong with the run.
 */
export function readRunHeadline(summary: unknown): RunHeadline {
  if (!isObject(summary)) throw new Error('expected a JSON object');
  const n = finiteNumber(summary.n);
  if (n === undefined) throw new Error("field 'n' (number of questions) is missing or not a number");

  const reachable: RunHeadline['reachable'] = [];
  if (isObject(summary.reachable)) {
    for (const [probe, value] of Object.entries(summary.reachable)) {
      const rate = readRate(value, n);
      if (rate) reachable.push({ probe, rate });
    }
  }

  const blind: BlindRate[] = [];
  if (isObject(summary.blind)) {
    for (const [probe, selectors] of Object.entries(summary.blind)) {
      if (!isObject(selectors)) continue;
      for (const [selector, value] of Object.entries(selectors)) {
        // global-route is scored on a held-out split, so the run's n is not its n.
        const rate = readRate(value, selector === 'global-route' ? undefined : n);
        if (rate) blind.push({ probe, selector, ...rate });
      }
    }
  }

  let repair: RepairHeadline | undefined;
  if (isObject(summary.repair)) {
    const failureSetSize = finiteNumber(summary.repair.failureSetSize);
    if (failureSetSize !== undefined) {
      const repairRate = finiteNumber(summary.repair.repairRate);
      const heldOut = finiteNumber(summary.repair.n);
      const repaired = finiteNumber(summary.repair.repaired);
      repair = {
        failureSetSize,
        identifiedBlock: finiteNumber(summary.repair.identifiedBlock),
        // Scored on the held-out half of the failure set (the other half chose the block).
        repairRate:
          repairRate === undefined
            ? undefined
            : {
                rate: repairRate,
                ci: readInterval(summary.repair.ci),
                ...(heldOut === undefined ? {} : { n: heldOut }),
                ...(repaired === undefined ? {} : { successes: repaired }),
              },
        damageRate: finiteNumber(summary.repair.damageRate),
      };
    }
  }

  return {
    n,
    realized: readRate(summary.realized, n),
    reachable,
    reachableAny: readRate(summary.reachableAny, n),
    blind,
    repair,
  };
}

/** 0.4251 → "42.5%". */
export function formatPercent(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`;
}

/** "37.5% (3/8, 95% CI 13.7–69.4%)"; without a success count "… (95% CI …, n=8)"; unknown parts left out. */
export function formatRateDetail(value: RateWithInterval): string {
  const extras: string[] = [];
  const counted = value.successes !== undefined && value.n !== undefined;
  if (counted) extras.push(`${value.successes}/${value.n}`);
  if (value.ci) extras.push(`95% CI ${(value.ci[0] * 100).toFixed(1)}–${formatPercent(value.ci[1])}`);
  if (!counted && value.n !== undefined) extras.push(`n=${value.n}`);
  return extras.length ? `${formatPercent(value.rate)} (${extras.join(', ')})` : formatPercent(value.rate);
}

/** One line for the run's row: "realized 42.5% · reachable sample 62.5%, routes 70.0% · n=40". */
export function formatHeadlineLine(headline: RunHeadline): string {
  const parts: string[] = [];
  if (headline.realized) parts.push(`realized ${formatPercent(headline.realized.rate)}`);
  if (headline.reachable.length) {
    parts.push(
      'reachable ' + headline.reachable.map((r) => `${r.probe} ${formatPercent(r.rate.rate)}`).join(', '),
    );
  }
  parts.push(`n=${headline.n}`);
  return parts.join(' · ');
}
