/**
 * A lighteval details file (`details_<task>_<date>.parquet`) written with hyparquet-writer in the
 * column layout lighteval saves, for tests. No public details file was usable (the ones in
 * huggingface/lighteval's tests/reference_details are Git LFS pointers), so the layout is written
 * field by field from lighteval's writer code at commit 3fd15266bc8448b797e61462d293aa3fd40b3580
 * (MIT): src/lighteval/logging/evaluation_tracker.py `save()` makes one row per
 * `DetailsLogger.Detail(doc, model_response, metric)` with `asdict` and keeps the columns sorted
 * (doc, metric, model_response); the struct fields are those of `Doc` (src/lighteval/tasks/requests.py)
 * and `ModelResponse` (src/lighteval/models/model_output.py), in their declaration order. Fields that
 * are None on every row (images, logits…) are written as all-null optional columns: pyarrow would
 * give them its null type, which hyparquet-writer cannot write and a reader treats the same.
 */
import { parquetWriteBuffer } from 'hyparquet-writer';

type SchemaElement = Parameters<typeof parquetWriteBuffer>[0]['schema'] extends (infer E)[] | undefined ? E : never;

/** One sample as lighteval logs it; fields not given take the dataclasses' defaults. */
export interface DetailSample {
  query: string;
  choices: string[];
  goldIndex: number | number[];
  id?: string;
  /** model_response.input: the prompt as sent (null: the backend did not record it). */
  input?: string | null;
  /** model_response.text: one output per sample asked. */
  text: string[];
  metric: Record<string, number>;
  /** doc.specific.extracted_predictions, as the extractive-match metrics write it. */
  extracted?: string[];
  generationSize?: number;
  stopSequences?: string[];
}

const text = (name: string): SchemaElement => ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' });
const int64 = (name: string): SchemaElement => ({ name, type: 'INT64', repetition_type: 'OPTIONAL' });
const double = (name: string): SchemaElement => ({ name, type: 'DOUBLE', repetition_type: 'OPTIONAL' });
const bool = (name: string): SchemaElement => ({ name, type: 'BOOLEAN', repetition_type: 'OPTIONAL' });
const struct = (name: string, children: SchemaElement[][]): SchemaElement[] => [{ name, repetition_type: 'OPTIONAL', num_children: children.length }, ...children.flat()];
/** A list in the three-level layout pyarrow writes. */
const list = (name: string, element: SchemaElement[]): SchemaElement[] => [
  { name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  ...element,
];

/** The bytes of a details file holding `samples`, rows in order. `metricNames` fixes the metric struct's fields. */
export function lightevalDetailsFile(samples: DetailSample[], metricNames: string[], rowGroupSize = 1000): Uint8Array {
  const multiGold = samples.some((s) => Array.isArray(s.goldIndex));
  const withExtraction = samples.some((s) => s.extracted);
  const schema: SchemaElement[] = [
    { name: 'schema', num_children: 3 },
    ...struct('doc', [
      [text('query')],
      list('choices', [text('element')]),
      multiGold ? list('gold_index', [int64('element')]) : [int64('gold_index')],
      [text('instruction')],
      [text('images')],
      withExtraction ? struct('specific', [list('extracted_predictions', [text('element')]), list('extracted_golds', [text('element')])]) : [text('specific')],
      [text('unconditioned_query')],
      [text('original_query')],
      [text('id')],
      [text('task_name')],
      list('fewshot_samples', [text('element')]),
      list('sampling_methods', [text('element')]),
      [text('fewshot_sorting_class')],
      [int64('generation_size')],
      list('stop_sequences', [text('element')]),
      [bool('use_logits')],
      [int64('num_samples')],
      [text('generation_grammar')],
    ]),
    ...struct('metric', metricNames.map((m) => [double(m)])),
    ...struct('model_response', [
      [text('input')],
      list('input_tokens', [int64('element')]),
      list('text', [text('element')]),
      list('output_tokens', list('element', [int64('element')])),
      list('text_post_processed', [text('element')]),
      list('reasonings', [text('element')]),
      list('logprobs', [double('element')]),
      list('argmax_logits_eq_gold', [bool('element')]),
      [text('logits')],
      [text('unconditioned_logprobs')],
      [int64('truncated_tokens_count')],
      [int64('padded_tokens_count')],
    ]),
  ];
  const doc = samples.map((s) => ({
    query: s.query,
    choices: s.choices,
    // One column type for the file: a list when any sample has several golds, as arrow would have to store it.
    gold_index: multiGold ? [s.goldIndex].flat().map(BigInt) : BigInt(s.goldIndex as number),
    instruction: null,
    images: null,
    specific: s.extracted ? { extracted_predictions: s.extracted, extracted_golds: [] } : null,
    unconditioned_query: null,
    original_query: null,
    id: s.id ?? '',
    task_name: 'lighteval|test_task',
    fewshot_samples: [],
    sampling_methods: ['GENERATIVE'],
    fewshot_sorting_class: null,
    generation_size: s.generationSize === undefined ? null : BigInt(s.generationSize),
    stop_sequences: s.stopSequences ?? null,
    use_logits: false,
    num_samples: BigInt(s.text.length),
    generation_grammar: null,
  }));
  const metric = samples.map((s) => Object.fromEntries(metricNames.map((m) => [m, s.metric[m] ?? null])));
  const response = samples.map((s) => ({
    input: s.input ?? null,
    input_tokens: [1n, 2n, 3n],
    text: s.text,
    output_tokens: s.text.map(() => [4n, 5n]),
    text_post_processed: null,
    reasonings: s.text.map(() => null),
    logprobs: [],
    argmax_logits_eq_gold: [],
    logits: null,
    unconditioned_logprobs: null,
    truncated_tokens_count: 0n,
    padded_tokens_count: 0n,
  }));
  const buffer = parquetWriteBuffer({
    columnData: [
      { name: 'doc', data: doc },
      { name: 'metric', data: metric },
      { name: 'model_response', data: response },
    ],
    schema,
    rowGroupSize,
  });
  return new Uint8Array(buffer);
}
