/**
 * Which variables a chat template reads from outside itself, so that a template variable given with
 * --chat-template-kwargs that the template never reads is refused by name: rendering with it would
 * give the same prompt, and the run would record a switch that switched nothing.
 *
 * A name counts only where the template reads it as a variable of its own scope: `content` in
 * `message.content` is an attribute, `loop` and `message` inside `{% for message in messages %}`
 * are the loop's own, a macro's parameters are the macro's, and a keyword argument's name or a
 * filter's or test's name is none of the template's variables. Every other identifier is read
 * from outside: given a value by a keyword of that name, it changes what renders, or may.
 * (A variable the template sets is still counted where it is read: `{% if x is not defined %}{% set
 * x = … %}` reads x first.)
 */
import { parse, tokenize } from '@huggingface/jinja';

const readNamesOf = new WeakMap<object, ReadonlySet<string>>();

/** An AST node as the walk sees it: a type and fields that hold further nodes. */
interface Node {
  type: string;
  [field: string]: unknown;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** The names a loop variable, a parameter list or an unpacking binds. */
function boundNames(target: unknown): string[] {
  if (!isNode(target)) return [];
  if (target.type === 'Identifier') return [String(target.value)];
  if (target.type === 'KeywordArgumentExpression') return boundNames(target.key);
  if (target.type === 'TupleLiteral' && Array.isArray(target.value)) return target.value.flatMap(boundNames);
  return [];
}

/** Every name read from outside the template, walking its syntax tree with the names each scope binds. */
function readNames(program: Node): Set<string> {
  const read = new Set<string>();
  const walk = (value: unknown, bound: ReadonlySet<string>): void => {
    if (Array.isArray(value)) {
      for (const v of value) walk(v, bound);
      return;
    }
    if (value instanceof Map) {
      for (const [k, v] of value) {
        walk(k, bound);
        walk(v, bound);
      }
      return;
    }
    if (!isNode(value)) return;
    const within = (names: readonly string[]) => new Set([...bound, ...names]);
    switch (value.type) {
      case 'Identifier':
        if (!bound.has(String(value.value))) read.add(String(value.value));
        return;
      case 'MemberExpression':
        walk(value.object, bound);
        if (value.computed === true) walk(value.property, bound);
        return;
      case 'KeywordArgumentExpression':
        walk(value.value, bound);
        return;
      case 'FilterExpression':
        walk(value.operand, bound);
        if (isNode(value.filter) && value.filter.type === 'CallExpression') walk(value.filter.args, bound);
        return;
      case 'FilterStatement':
        if (isNode(value.filter) && value.filter.type === 'CallExpression') walk(value.filter.args, bound);
        walk(value.body, bound);
        return;
      case 'TestExpression':
        walk(value.operand, bound);
        return;
      case 'SelectExpression':
        walk(value.lhs, bound);
        walk(value.test, bound);
        return;
      case 'For': {
        const inner = within([...boundNames(value.loopvar), 'loop']);
        const iterable = value.iterable;
        // `for x in xs if test`: the test reads the loop variable.
        if (isNode(iterable) && iterable.type === 'SelectExpression') {
          walk(iterable.lhs, bound);
          walk(iterable.test, inner);
        } else {
          walk(iterable, bound);
        }
        walk(value.body, inner);
        walk(value.defaultBlock, bound);
        return;
      }
      case 'Macro': {
        const params = Array.isArray(value.args) ? value.args : [];
        // Default values are read where the macro is defined.
        for (const p of params) if (isNode(p) && p.type === 'KeywordArgumentExpression') walk(p.value, bound);
        walk(value.body, within([...params.flatMap(boundNames), 'varargs', 'kwargs', 'caller']));
        return;
      }
      case 'CallStatement': {
        walk(value.call, bound);
        const params = Array.isArray(value.callerArgs) ? value.callerArgs : [];
        walk(value.body, within(params.flatMap(boundNames)));
        return;
      }
      case 'Set':
        // The assignee is written, not read; `ns.x = …` reads ns.
        if (isNode(value.assignee) && value.assignee.type === 'MemberExpression') walk(value.assignee.object, bound);
        walk(value.value, bound);
        walk(value.body, bound);
        return;
      default:
        for (const [field, inner] of Object.entries(value)) {
          // An operator is a lexer token, not a name.
          if (field !== 'type' && field !== 'operator') walk(inner, bound);
        }
    }
  };
  walk(program, new Set());
  return read;
}

function namesRead(key: object, source: string): ReadonlySet<string> {
  let names = readNamesOf.get(key);
  if (!names) {
    // Jinja's own lexer and parser, as the template is rendered by.
    const program: unknown = parse(tokenize(source, { lstrip_blocks: true, trim_blocks: true }));
    names = isNode(program) ? readNames(program) : new Set<string>();
    readNamesOf.set(key, names);
  }
  return names;
}

/** Whether the template (`source`, cached under `key`) reads `name` from outside (a function it calls, a variable it reads). */
export function templateNames(key: object, source: string, name: string): boolean {
  return namesRead(key, source).has(name);
}

/** The keys of `kwargs` that the template (`source`, cached under `key`) never reads as a variable of its own, in the order given. */
export function unreadTemplateKwargs(key: object, source: string, kwargs: Readonly<Record<string, unknown>>): string[] {
  const keys = Object.keys(kwargs);
  if (keys.length === 0) return [];
  const names = namesRead(key, source);
  return keys.filter((k) => !names.has(k));
}
