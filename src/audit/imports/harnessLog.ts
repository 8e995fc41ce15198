/**
 * An evaluation harness's log as Reach Audit reads it, whatever wrote it (docs/design/data-in-data-out.md,
 * "Imported logs"): per question the benchmark row it asked, the prompt it sent, the outputs it got, and its
 * own readings of the first output; plus what the log says about the run and what it cannot say.
 */
import type { ImportedLog } from '../../contract';

/** The harness's own reading of a question under one filter or scorer. */
export interface HarnessReading {
  /** The answer it extracted from the output (null: the log has none). */
  extracted: string | null;
  /** Whether it scored the output correct (null: its score is not a 0/1 verdict). */
  correct: boolean | null;
  /** Its numeric scores as logged. */
  scores: Record<string, number>;
}

/** One question of a harness log. */
export interface LoggedQuestion {
  /** The harness's own key for the question (lm-eval's doc_id, Inspect's sample id). */
  key: string;
  /** 1-based position in the benchmark as the harness iterated it: the question's line. */
  position: number;
  /** The benchmark row as logged (the fields a dataset file would have). */
  doc: Record<string, unknown>;
  /** Where in the log the question is, for messages ("FILE:LINE"). */
  where: string;
  prompt: string;
  /** Every output for the question, the deployment's first; more than one: repeats / epochs. */
  outputs: string[];
  readings: Record<string, HarnessReading>;
}

export interface HarnessLog extends Omit<ImportedLog, 'sources'> {
  questions: LoggedQuestion[];
}
