/**
 * Messages between the extension host and the Tables page (the cross-run tables and the training
 * trajectory). Everything in a message may come from untrusted run files; the page shows it as
 * text only.
 */
import type { TrajectoryResult } from './trajectory';

/** One table, formatted as the CLI prints it (cells are text). */
export interface TableData {
  id: string;
  title: string;
  /** Above the table: the headline "X of Y" and the rule that decided it. */
  notes: string[];
  headers: string[];
  rows: string[][];
  /** Below it: what was listed apart (unmatched budgets, runs without the probe). */
  apart: string[];
}

export type TablesTab = 'tables' | 'trajectory';

/** Extension host → Tables page. */
export type TablesHostMessage =
  | {
      type: 'showTables';
      /** The run and comparison folders the tables were built from. */
      sources: string[];
      tables: TableData[];
      /** Unfinished runs, torn lines: said above the tables. */
      warnings: string[];
    }
  | {
      type: 'showTrajectory';
      /** Where it came from (a trajectory.json, or the runs), for the heading. */
      source: string;
      trajectory: TrajectoryResult;
      /** The same numbers as the CLI's tables (checkpoints, flows). */
      tables: TableData[];
      warnings: string[];
    }
  | { type: 'showTab'; tab: TablesTab };

/** Tables page → extension host. */
export type TablesWebviewMessage =
  | { type: 'ready' }
  /** Open question `id` of checkpoint `checkpoint` (an index into trajectory.points) in the audit panel. */
  | { type: 'openQuestion'; checkpoint: number; id: string };
