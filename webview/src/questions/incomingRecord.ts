/**
 * A record as the panel receives it, completed where parts are missing. The extension validates
 * the run files it reads, but a live batch or a record from an older or foreign tool can still
 * lack a part; the panel shows what is there (a missing probe section reads "No probe results")
 * instead of failing on the rest. Present values are kept as they are, id included.
 */
import { isObject, type QuestionRecord } from '../../../src/contract';

const NO_COST = { generations: 0, tokens: 0, blockApplications: 0 };

export function completeRecord(record: QuestionRecord): QuestionRecord {
  const realized: unknown = record.realized;
  return {
    ...record,
    question: typeof record.question === 'string' ? record.question : '',
    gold: typeof record.gold === 'string' ? record.gold : String(record.gold ?? ''),
    realized: {
      output: '',
      answer: null,
      correct: false,
      truncated: false,
      rule: 'none',
      logprob: null,
      tokens: 0,
      cost: NO_COST,
      ...(isObject(realized) ? realized : {}),
    },
    probes: isObject(record.probes) ? record.probes : {},
    reachable: isObject(record.reachable) ? record.reachable : {},
    blind: isObject(record.blind) ? record.blind : {},
  };
}
