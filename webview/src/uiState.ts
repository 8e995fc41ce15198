/**
 * The panel's UI state (sort, filter, search, selection, scroll, tab, comparison filter) as VS Code
 * keeps it for a webview (getState/setState survive the panel being hidden and shown). Restored
 * state is checked field by field: an older panel version may have stored something else.
 */
import type { ColumnWidths, PanelTab, PanelUiState, SortKey } from '../../src/contract';

const SORT_KEYS: readonly SortKey[] = ['id', 'question', 'gold', 'answer', 'state'];
const TABS: readonly PanelTab[] = ['questions', 'comparison', 'charts'];

export function defaultUiState(): PanelUiState {
  return { sort: { key: 'id', descending: false }, filter: 'all', search: '', truncatedOnly: false, scrollTop: 0, tab: 'questions' };
}

export function readUiState(stored: unknown): PanelUiState {
  const state = defaultUiState();
  if (!stored || typeof stored !== 'object') return state;
  const s = stored as Record<string, unknown>;
  const sort = s.sort as Record<string, unknown> | undefined;
  if (sort && typeof sort === 'object' && SORT_KEYS.includes(sort.key as SortKey)) {
    state.sort = { key: sort.key as SortKey, descending: sort.descending === true };
  }
  if (typeof s.filter === 'string') state.filter = s.filter;
  if (typeof s.search === 'string') state.search = s.search;
  if (typeof s.truncatedOnly === 'boolean') state.truncatedOnly = s.truncatedOnly;
  if (typeof s.selectedId === 'string') state.selectedId = s.selectedId;
  if (typeof s.runId === 'string') state.runId = s.runId;
  if (typeof s.scrollTop === 'number' && Number.isFinite(s.scrollTop) && s.scrollTop >= 0) state.scrollTop = s.scrollTop;
  if (TABS.includes(s.tab as PanelTab)) state.tab = s.tab as PanelTab;
  if (typeof s.compareFilter === 'string') state.compareFilter = s.compareFilter;
  if (s.columns && typeof s.columns === 'object') {
    const columns: ColumnWidths = {};
    for (const [key, width] of Object.entries(s.columns as Record<string, unknown>)) {
      if (SORT_KEYS.includes(key as SortKey) && typeof width === 'number' && Number.isFinite(width) && width > 0 && width < 10_000) columns[key as SortKey] = width;
    }
    if (Object.keys(columns).length > 0) state.columns = columns;
  }
  return state;
}
