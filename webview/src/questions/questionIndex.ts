/**
 * The question table's model: rows derived once per record, a search haystack per row, sort
 * orders cached per column, and queries (filter + search + sort) that answer with row positions.
 * DOM-free so it is unit-tested in Node and timed in the browser bench.
 */
import { isObject, type QuestionRecord, type SortKey } from '../../../src/contract';
import { completeRecord } from './incomingRecord';
import { deriveRow, findFilter, Flag, type QuestionRow, type StateFilter } from './questionRow';

export interface Query {
  filter: string;
  search: string;
  truncatedOnly: boolean;
  sort: { key: SortKey; descending: boolean };
  /** Only these question ids (a comparison's transition cell, say); absent: every question. */
  ids?: ReadonlySet<string>;
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

function compareBy(key: SortKey): (a: QuestionRow, b: QuestionRow) => number {
  switch (key) {
    case 'id':
      return (a, b) => collator.compare(a.id, b.id) || a.index - b.index;
    case 'question':
      return (a, b) => collator.compare(a.preview, b.preview) || a.index - b.index;
    case 'gold':
      return (a, b) => collator.compare(a.gold, b.gold) || a.index - b.index;
    case 'answer':
      return (a, b) => collator.compare(a.answer, b.answer) || a.index - b.index;
    case 'state':
      // Within a state, more probes reaching it first, then run order.
      return (a, b) => a.stateRank - b.stateRank || b.reachableBy.length - a.reachableBy.length || a.index - b.index;
  }
}

export class QuestionIndex {
  readonly rows: QuestionRow[] = [];
  private readonly byId = new Map<string, QuestionRow>();
  private readonly sorted = new Map<SortKey, Int32Array>();
  /** Probes seen in any record, in first-seen order. */
  readonly probes: string[] = [];
  /** An imported run's harness readings (lm-eval filters, Inspect scorers) seen in any record, in first-seen order. */
  readonly readings: string[] = [];

  constructor(records: readonly QuestionRecord[] = []) {
    this.add(records);
  }

  /** Adds records (a live run's next batch). A record whose id is already present replaces it. */
  add(records: readonly QuestionRecord[]): void {
    for (const received of records) {
      if (!received || typeof received !== 'object') continue;
      const record = completeRecord(received);
      const id = String(record.id ?? '');
      const existing = this.byId.get(id);
      const row = deriveRow(record, existing ? existing.index : this.rows.length);
      if (existing) this.rows[existing.index] = row;
      else this.rows.push(row);
      this.byId.set(id, row);
      if (record.probes) for (const p of Object.keys(record.probes)) if (!this.probes.includes(p)) this.probes.push(p);
      if (record.reachable) for (const p of Object.keys(record.reachable)) if (!this.probes.includes(p)) this.probes.push(p);
      const readings = isObject(record.harness) && isObject(record.harness.readings) ? Object.keys(record.harness.readings) : [];
      for (const r of readings) if (!this.readings.includes(r)) this.readings.push(r);
    }
    this.sorted.clear();
  }

  get size(): number {
    return this.rows.length;
  }

  get(id: string): QuestionRow | undefined {
    return this.byId.get(id);
  }

  /** Row positions in ascending order of `key` (cached until rows change). */
  private order(key: SortKey): Int32Array {
    let order = this.sorted.get(key);
    if (!order) {
      const rows = this.rows.slice().sort(compareBy(key));
      order = new Int32Array(rows.length);
      for (let i = 0; i < rows.length; i++) order[i] = rows[i].index;
      this.sorted.set(key, order);
    }
    return order;
  }

  /**
   * Rows matching the query, in display order. Search is a case-insensitive substring match over
   * id, question, gold and deployed answer; several words must all match. The id set, the state
   * filter, the truncated switch and the search all apply together.
   */
  query(query: Query, filters: readonly StateFilter[]): QuestionRow[] {
    const filter = findFilter(filters, query.filter);
    const needles = query.search.toLowerCase().split(/\s+/).filter((w) => w.length > 0);
    const order = this.order(query.sort.key);
    const out: QuestionRow[] = [];
    const n = order.length;
    for (let i = 0; i < n; i++) {
      const row = this.rows[order[query.sort.descending ? n - 1 - i : i]];
      if (query.ids && !query.ids.has(row.id)) continue;
      if (query.truncatedOnly && (row.flags & Flag.truncated) === 0) continue;
      if (!filter.test(row)) continue;
      let hit = true;
      for (const needle of needles) {
        if (!row.haystack.includes(needle)) {
          hit = false;
          break;
        }
      }
      if (hit) out.push(row);
    }
    return out;
  }
}
