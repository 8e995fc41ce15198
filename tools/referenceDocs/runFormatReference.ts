/**
 * docs/reference/run-format.md from the run files' runtime schemas (src/audit/store/runFileSchemas.ts,
 * the valibot schemas every reader validates against) and the contract's doc comments
 * (src/contract, whose types those schemas are checked to equal): each field's path, its type and
 * bounds as the schema checks them, whether it may be absent, and what it means.
 */
import * as path from 'node:path';
import * as ts from 'typescript';
import { headingSlug } from './headingSlug';
import { questionRecordSchema, runManifestSchema, runSummarySchema, storedComparisonSchema, storedTrajectorySchema } from '../../src/audit/store/runFileSchemas';

/** The parts of a valibot schema or action this reads (the library's own shape, by kind and type). */
interface SchemaNode {
  kind: string;
  type: string;
  expects?: string | null;
  message?: unknown;
  requirement?: unknown;
  entries?: Record<string, SchemaNode>;
  wrapped?: SchemaNode;
  item?: SchemaNode;
  value?: SchemaNode;
  key?: string | SchemaNode;
  options?: (SchemaNode | string | number)[];
  literal?: unknown;
  pipe?: SchemaNode[];
}

interface Row {
  field: string;
  type: string;
  presence: string;
  description: string;
}

function bound(action: SchemaNode): string | undefined {
  const r = action.requirement;
  switch (action.type) {
    case 'integer': return 'integer';
    case 'finite': return 'finite';
    case 'min_value': return `≥ ${String(r)}`;
    case 'max_value': return `≤ ${String(r)}`;
    case 'gt_value': return `> ${String(r)}`;
    case 'lt_value': return `< ${String(r)}`;
    case 'check': return typeof action.message === 'string' ? action.message.replace(/^expected /, '') : undefined;
    default: return undefined;
  }
}

function literalText(value: unknown): string {
  return `\`${JSON.stringify(value)}\``;
}

/** One schema's type in words (containers by what they hold), with the bounds its pipe checks. */
function typeText(schema: SchemaNode): string {
  const checks = (schema.pipe ?? []).slice(1).map(bound).filter((b): b is string => b !== undefined);
  const suffix = checks.length ? ` (${checks.join(', ')})` : '';
  switch (schema.type) {
    case 'optional':
    case 'nullable':
    case 'nullish': {
      const inner = typeText(schema.wrapped as SchemaNode);
      return schema.type === 'optional' ? inner : `${inner} or null`;
    }
    case 'array': return `array of ${typeText(schema.item as SchemaNode)}${suffix}`;
    case 'record': return `object of ${typeText(schema.value as SchemaNode)} by name${suffix}`;
    case 'object':
    case 'loose_object':
    case 'strict_object': return `object${suffix}`;
    case 'picklist': return `one of ${(schema.options as (string | number)[]).map(literalText).join(', ')}`;
    case 'literal': return literalText(schema.literal);
    case 'variant': return `object, by \`${String(schema.key)}\``;
    case 'union': return (schema.options as SchemaNode[]).map(typeText).join(' or ');
    default: return `${schema.type}${suffix}`;
  }
}

/** Optional/nullable wrappers peeled: the schema whose children are listed. */
function unwrap(schema: SchemaNode): SchemaNode {
  return schema.wrapped ? unwrap(schema.wrapped) : schema;
}

/** The contract's exported types, read by the TypeScript checker for their doc comments. */
function contractChecker(): { checker: ts.TypeChecker; exports: ts.Symbol[] } {
  const root = path.resolve(__dirname, '..', '..', '..');
  const entry = path.join(root, 'src', 'contract', 'index.ts');
  const program = ts.createProgram([entry], { strict: true, skipLibCheck: true, noEmit: true, noResolve: false, types: [] });
  const checker = program.getTypeChecker();
  const index = program.getSourceFile(entry);
  const moduleSymbol = index ? checker.getSymbolAtLocation(index) : undefined;
  if (!moduleSymbol) throw new Error('src/contract/index.ts not found');
  return { checker, exports: checker.getExportsOfModule(moduleSymbol) };
}

/** The contract's doc comments by field path (`realized.output`, `reachable.*.ci.lo`, `attempts[].route`). */
function contractDocs(contract: { checker: ts.TypeChecker; exports: ts.Symbol[] }, typeName: string): Map<string, string> {
  const { checker } = contract;
  const exported = contract.exports.find((s) => s.name === typeName);
  if (!exported) throw new Error(`src/contract exports no ${typeName}`);
  const docs = new Map<string, string>();
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const walk = (type: ts.Type, prefix: string, depth: number) => {
    if (depth > 12) return;
    const plain = checker.getNonNullableType(type);
    const parts = plain.isUnion() ? plain.types : [plain];
    for (const part of parts) {
      if (checker.isArrayType(part)) {
        const element = checker.getTypeArguments(part as ts.TypeReference)[0];
        if (element) walk(element, `${prefix}[]`, depth + 1);
        continue;
      }
      const indexed = part.getStringIndexType();
      if (indexed) walk(indexed, `${prefix}.*`, depth + 1);
      for (const property of part.getProperties()) {
        const name = prefix ? `${prefix}.${property.name}` : property.name;
        const text = ts.displayPartsToString(property.getDocumentationComment(checker)).replace(/\s+/g, ' ').trim();
        if (text && !docs.has(name)) docs.set(name, text);
        const declaration = property.valueDeclaration ?? property.declarations?.[0];
        if (declaration) walk(checker.getTypeOfSymbolAtLocation(property, declaration), name, depth + 1);
      }
    }
  };
  walk(checker.getDeclaredTypeOfSymbol(symbol), '', 0);
  return docs;
}

const WITH_FIELDS = ['object', 'loose_object', 'strict_object', 'variant', 'union'];

/** The object shape a field holds, itself or as the elements or values of an array or map; undefined for a plain value. */
function shapeOf(schema: SchemaNode): SchemaNode | undefined {
  const node = unwrap(schema);
  if (WITH_FIELDS.includes(node.type)) return node;
  if (node.type === 'array' && node.item) return shapeOf(node.item);
  if (node.type === 'record' && node.value) return shapeOf(node.value);
  return undefined;
}

/**
 * The rows of `schema`'s fields under `prefix`. A shape met before in the same file (a rate, an
 * interval, an attempt: one schema used in many places) is listed once, where it first appears, and
 * each later field says whose fields it has.
 */
function rows(schema: SchemaNode, prefix: string, docs: Map<string, string>, out: Row[], seen = new Map<SchemaNode, string>()): void {
  const node = unwrap(schema);
  const add = (field: string, child: SchemaNode) => {
    const presence = child.type === 'optional' ? 'may be absent' : '';
    const shape = shapeOf(child);
    const first = shape ? seen.get(shape) : undefined;
    const type = first === undefined ? typeText(child) : `${typeText(child)}; fields as \`${first}\``;
    out.push({ field, type, presence, description: docs.get(field) ?? '' });
    if (first !== undefined) return;
    if (shape) seen.set(shape, field);
    rows(child, field, docs, out, seen);
  };
  switch (node.type) {
    case 'object':
    case 'loose_object':
    case 'strict_object':
      for (const [key, child] of Object.entries(node.entries ?? {})) add(prefix ? `${prefix}.${key}` : key, child);
      return;
    case 'variant':
    case 'union': {
      // Each alternative's fields under the same path; a field two alternatives share is listed once.
      const listed = new Set(out.map((r) => r.field));
      for (const option of (node.options ?? []) as SchemaNode[]) {
        const more: Row[] = [];
        rows(option, prefix, docs, more, seen);
        for (const row of more) if (!listed.has(row.field)) { listed.add(row.field); out.push(row); }
      }
      return;
    }
    case 'array': {
      const item = node.item as SchemaNode;
      if (['object', 'variant', 'union', 'record', 'array'].includes(unwrap(item).type)) rows(item, `${prefix}[]`, docs, out, seen);
      return;
    }
    case 'record': {
      const value = node.value as SchemaNode;
      if (['object', 'variant', 'union', 'record', 'array'].includes(unwrap(value).type)) rows(value, `${prefix}.*`, docs, out, seen);
      return;
    }
    default:
      return;
  }
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

const FILES: { file: string; heading: string; about: string; schema: unknown; type: string }[] = [
  { file: 'manifest.json', heading: 'manifest.json', type: 'RunManifest', schema: runManifestSchema, about: 'What was audited and how: the model and dataset (paths and content hashes), the deployment, probes, budgets, selectors, repair settings, seeds and engine version — everything a record depends on. `--resume` continues a run only when all of it matches.' },
  { file: 'records.jsonl', heading: 'records.jsonl (one line per question)', type: 'QuestionRecord', schema: questionRecordSchema, about: 'One JSON object per finished question, appended as it finishes.' },
  { file: 'summary.json', heading: 'summary.json', type: 'RunSummary', schema: runSummarySchema, about: 'The run\'s rates, each with its `n` and 95% interval; recomputable from records.jsonl.' },
  { file: 'comparison.json', heading: 'comparison.json', type: 'StoredComparison', schema: storedComparisonSchema, about: 'A base vs tuned comparison (`reach-audit compare`): the two runs and their paired differences.' },
  { file: 'trajectory.json', heading: 'trajectory.json', type: 'StoredTrajectory', schema: storedTrajectorySchema, about: 'A training trajectory (`reach-audit trajectory`): per checkpoint rates and the questions that moved between states at each step.' },
];

export function runFormatReference(): string {
  const lines = [
    '# Run-format reference',
    '',
    '<!-- Generated by `npm run docs` (tools/writeReferenceDocs.ts) from src/audit/store/runFileSchemas.ts and the doc comments of src/contract; do not edit by hand. -->',
    '',
    'A run is a folder `.reach-audit/runs/<time>-<name>/` holding `manifest.json`, `records.jsonl` and `summary.json`',
    '(and, when they were made, `timings.json`, the repair scan\'s files and `mechanism.jsonl`); comparisons and trajectories',
    'are folders of their own. Every reader checks a file against the schema below and names the file, line and field',
    'that does not match. Keys not listed pass: other tools may add keys. In field paths, `[]` is each element of an array',
    'and `*` each value of an object keyed by name (a probe, a selector, k). The design behind the formats is in',
    '[docs/design/data-in-data-out.md](../design/data-in-data-out.md).',
    '',
    FILES.map((f) => `[${f.file}](#${headingSlug(f.heading)})`).join(' · '),
  ];
  const contract = contractChecker();
  for (const f of FILES) {
    const docs = contractDocs(contract, f.type);
    const out: Row[] = [];
    rows(f.schema as SchemaNode, '', docs, out);
    lines.push('', `## ${f.heading}`, '', f.about, '', '| field | type | | meaning |', '|---|---|---|---|');
    for (const r of out) lines.push(`| \`${r.field}\` | ${cell(r.type)} | ${r.presence} | ${cell(r.description)} |`);
  }
  return lines.join('\n') + '\n';
}
