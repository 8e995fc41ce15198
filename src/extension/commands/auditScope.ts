/**
 * The two run choices the Run Reachability Audit picker adds to probes and budgets, as pure
 * item lists and parsers (auditChoices.ts shows them): how many questions (all, or the first N:
 * the CLI's --limit), and which answer-blind selectors run. The global-route selector costs
 * generations of its own (its shared pool of routes is decoded on every question), so its item
 * says how many: the plan before the first question counts exactly what was picked here.
 */
import { DEFAULT_SELECTORS, type SelectorName, RATE_MIN_QUESTIONS } from '../../contract';

export interface LimitItem {
  label: string;
  description?: string;
  /** undefined: every question of the file. */
  limit?: number;
  /** Asks for N. */
  custom?: true;
}

const PRESET_LIMITS = [RATE_MIN_QUESTIONS, 100];

/** "All questions (300)", "First 20", "First 100", "First N…"; the last choice first. `total` when the file's count is known. */
export function limitItems(total: number | undefined, last: number | undefined): LimitItem[] {
  const all: LimitItem = { label: total === undefined ? 'All questions' : `All ${total.toLocaleString('en-US')} questions`, description: 'the whole file' };
  const presets = [...new Set([...(last !== undefined ? [last] : []), ...PRESET_LIMITS])]
    .filter((n) => total === undefined || n < total)
    .map((n): LimitItem => ({ label: `First ${n.toLocaleString('en-US')}`, description: n < RATE_MIN_QUESTIONS ? `read question by question (rates from ${RATE_MIN_QUESTIONS})` : `reach-audit --limit ${n}`, limit: n }));
  const custom: LimitItem = { label: 'First N…', description: 'type how many', custom: true };
  const items = [all, ...presets, custom];
  // The remembered choice leads, so Enter repeats the last run's scope.
  if (last !== undefined && (total === undefined || last < total)) return [items[1], items[0], ...items.slice(2)];
  return items;
}

/** Why a typed N is not a question count (undefined when it is). */
export function limitProblem(text: string, total?: number): string | undefined {
  if (!/^[1-9]\d{0,6}$/.test(text.trim())) return 'A whole number of questions, 1 or more';
  if (total !== undefined && Number(text.trim()) > total) return `The file has ${total.toLocaleString('en-US')} questions`;
  return undefined;
}

/** Questions in a JSON-lines file (non-blank lines); undefined for other formats (a JSON array is not counted up front). */
export function countJsonLines(text: string, file: string): number | undefined {
  if (!/\.jsonl$/i.test(file)) return undefined;
  let n = 0;
  for (const line of text.split('\n')) if (line.trim() !== '') n++;
  return n;
}

export interface SelectorItem {
  label: SelectorName;
  description: string;
  detail: string;
  picked: boolean;
}

/**
 * The answer-blind selectors, `picked` as last chosen (default: all but learned-route, which is asked for by name). `routeBudget` is the largest
 * route-probe budget picked (0: none, and global-route is not offered: it picks among routes).
 */
export function selectorItems(picked: readonly string[] | undefined, routeBudget: number): SelectorItem[] {
  const chosen = new Set(picked ?? DEFAULT_SELECTORS);
  const items: SelectorItem[] = [
    { label: 'majority', description: 'no extra generations', detail: 'the most frequent answer among a probe\'s attempts', picked: chosen.has('majority') },
    { label: 'confidence', description: 'no extra generations', detail: 'the attempt with the highest mean token log-probability', picked: chosen.has('confidence') },
  ];
  if (routeBudget > 0) {
    items.push({
      label: 'global-route',
      description: `+${routeBudget} generations per question`,
      detail: `one route for all questions, chosen on half of them and scored on the other half: a shared pool of ${routeBudget} routes is decoded on every question (the plan's "global-routes ${routeBudget}"); from ${RATE_MIN_QUESTIONS} questions`,
      picked: chosen.has('global-route'),
    });
    items.push({
      label: 'learned-route',
      description: `the same pool: +${routeBudget} generations per question unless global-route is picked`,
      detail: `each question's route of the shared pool chosen by a router fit on the other folds (5 folds by a seeded hash of the question id; never its own answer), from its prompt's tokens; compared paired with global-route and a shuffled-label control; from ${RATE_MIN_QUESTIONS} questions`,
      picked: chosen.has('learned-route'),
    });
  }
  return items;
}

/** The largest budget among the route probes of `probes` ("routes:16", "search:8"). */
export function routeBudgetOf(probes: readonly string[]): number {
  return Math.max(0, ...probes.filter((p) => /^(routes|search)(:|$)/.test(p)).map((p) => Number(p.split(':')[1] ?? 16)).filter(Number.isFinite));
}
