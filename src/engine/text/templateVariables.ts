/**
 * Which names a chat template reads (its Jinja identifiers), so that a template variable given with
 * --chat-template-kwargs that the template never reads is refused by name: rendering with it would
 * give the same prompt, and the run would record a switch that switched nothing.
 */
import { tokenize } from '@huggingface/jinja';

const identifiersOf = new WeakMap<object, ReadonlySet<string>>();

function identifiers(key: object, source: string): ReadonlySet<string> {
  let names = identifiersOf.get(key);
  if (!names) {
    // Jinja's own lexer, as the template is rendered by; typed here as the tokens it returns.
    const tokens: readonly { type: string; value: string }[] = tokenize(source);
    names = new Set(tokens.filter((t) => t.type === 'Identifier').map((t) => t.value));
    identifiersOf.set(key, names);
  }
  return names;
}

/** Whether the template (`source`, cached under `key`) names `name` anywhere (a function it calls, a variable it reads). */
export function templateNames(key: object, source: string, name: string): boolean {
  return identifiers(key, source).has(name);
}

/** The keys of `kwargs` that the template (`source`, cached under `key`) has no identifier for, in the order given. */
export function unreadTemplateKwargs(key: object, source: string, kwargs: Readonly<Record<string, unknown>>): string[] {
  const keys = Object.keys(kwargs);
  if (keys.length === 0) return [];
  const names = identifiers(key, source);
  return keys.filter((k) => !names.has(k));
}
