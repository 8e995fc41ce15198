/**
 * mechanism.jsonl in a run folder: one MechanismRecord a line, appended and flushed as each
 * question is explained (a stopped `explain` resumes where it stopped), validated on read with
 * errors naming the file, the line and the field. The schema is checked against the contract type
 * at compile time, like the other run files' (runFileSchemas.ts).
 */
import * as path from 'node:path';
import * as v from 'valibot';
import type { BlockAccount, MechanismRecord, MechanismToken } from '../../contract';
import { type JsonLines, readJsonLines } from '../store';
import { validated } from '../store';
import { InputError } from '../../common';

export const MECHANISM_FILE = 'mechanism.jsonl';

const INTEGER = 'expected a non-negative integer';
const nonNegativeInteger = v.pipe(v.number(INTEGER), v.integer(INTEGER), v.minValue(0, INTEGER));
const positiveInteger = v.pipe(v.number('expected a positive integer'), v.integer('expected a positive integer'), v.minValue(1, 'expected a positive integer'));
const finite = v.pipe(v.number('expected a finite number'), v.finite('expected a finite number'));
const text = v.string('expected a string');

const token = v.object({ id: nonNegativeInteger, text }, 'expected an object');
const blockAccount = v.object({ lens: finite, rankG: positiveInteger, rankD: positiveInteger, attention: finite, mlp: finite }, 'expected an object');
const mechanismRecord = v.object(
  {
    id: text,
    skipped: v.optional(v.picklist(['no-correct-attempt', 'same-tokens', 'no-eos'], "expected 'no-correct-attempt', 'same-tokens' or 'no-eos'")),
    probe: v.optional(text),
    attempt: v.optional(nonNegativeInteger),
    position: v.optional(nonNegativeInteger),
    promptTokens: v.optional(nonNegativeInteger),
    sharedTail: v.optional(text),
    deployed: v.optional(token),
    gold: v.optional(token),
    top: v.optional(token),
    embedding: v.optional(finite),
    blocks: v.optional(v.array(blockAccount, 'expected an array of block accounts')),
    suppressor: v.optional(v.nullable(nonNegativeInteger)),
    blockSuppressor: v.optional(v.nullable(nonNegativeInteger)),
  },
  'expected an object',
);
/** An account has its tokens and blocks; a skipped line needs none. */
export const mechanismRecordSchema = v.pipe(
  mechanismRecord,
  v.check((r) => r.skipped !== undefined || (r.blocks !== undefined && r.deployed !== undefined && r.gold !== undefined), 'expected "skipped", or "blocks", "deployed" and "gold"'),
);

// Compile-time: the schema describes exactly the contract type (both directions, optional fields included).
type SameType<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Flat<T> = T extends readonly unknown[] ? { [K in keyof T]: Flat<T[K]> } : T extends object ? { [K in keyof T]: Flat<T[K]> } : T;
function sameType<A, B>(proof: SameType<Flat<A>, Flat<B>>): SameType<Flat<A>, Flat<B>> {
  return proof;
}
void [
  sameType<v.InferOutput<typeof token>, MechanismToken>(true),
  sameType<v.InferOutput<typeof blockAccount>, BlockAccount>(true),
  sameType<v.InferOutput<typeof mechanismRecordSchema>, MechanismRecord>(true),
];

export function validateMechanismRecord(value: unknown, file: string, line: number): MechanismRecord {
  return validated(mechanismRecordSchema, value, `${file}:${line}`);
}

/**
 * The run's mechanism.jsonl, validated; empty when `explain` has not run. With `numBlocks` (the
 * run's model's, when known) an account must hold one block account per block: an edited line
 * with 100,000 of them for an 8-block model is named, not drawn.
 */
export function readMechanism(folder: string, numBlocks?: number): JsonLines<MechanismRecord> {
  const file = path.join(folder, MECHANISM_FILE);
  return readJsonLines(file, (value, line) => {
    const account = validateMechanismRecord(value, file, line);
    if (numBlocks !== undefined && numBlocks > 0 && account.blocks !== undefined && account.blocks.length !== numBlocks) {
      throw new InputError(`${file}:${line}: field blocks holds ${account.blocks.length} block accounts, but the run's model has ${numBlocks} blocks; the file was edited or damaged`);
    }
    return account;
  });
}
