/**
 * Messages between the extension and the Tables page (the cross-run tables and the training
 * trajectory). DOM-free; its rates and states are the run-format contract's. Everything in a
 * message may come from untrusted run files; the page shows it as text only.
 */
import type { QuestionState, Rate } from '../../../src/contract';

/** A rate with its n and 95% Wilson interval. */
export type RateData = Rate;

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

export interface TrajectoryPointData {
  label: string;
  folder: string;
  n: number;
  realized: RateData;
  reachable: Record<string, RateData>;
  ceiling: RateData;
  passAt1: number | null;
  passAtK: number | null;
}

export type TrajectoryState = QuestionState;
export type FlowKey = `${TrajectoryState}->${TrajectoryState}`;

export interface TrajectoryFlowData {
  from: string;
  to: string;
  n: number;
  counts: Record<FlowKey, number>;
  /** The question ids of each move. */
  ids: Record<FlowKey, string[]>;
}

export interface TrajectoryData {
  probes: string[];
  ceilingBudget: number;
  passAtKProbe: string | null;
  passAtKMax: number;
  points: TrajectoryPointData[];
  flows: TrajectoryFlowData[];
}

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
      trajectory: TrajectoryData;
      /** The same numbers as the CLI's tables (checkpoints, flows). */
      tables: TableData[];
      warnings: string[];
    }
  | { type: 'showTab'; tab: TablesTab };

export type TablesTab = 'tables' | 'trajectory';

export type TablesWebviewMessage =
  | { type: 'ready' }
  /** Open question `id` of checkpoint `checkpoint` (an index into trajectory.points) in the audit panel. */
  | { type: 'openQuestion'; checkpoint: number; id: string };
