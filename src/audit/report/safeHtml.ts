/**
 * HTML built so that nothing from a run file can become markup: the `html` tag escapes every
 * interpolated value — strings and numbers alike, since a run file's "number" may be any JSON —
 * except values that are themselves Html (built by this tag) or arrays of them.
 */
import { escapeHtml } from '../../common';

/** Markup that is safe to insert as it is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

function render(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(value);
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** Html items joined by a separator that is itself markup. */
export function joinHtml(items: readonly Html[], separator: Html): Html {
  return new Html(items.map((i) => i.text).join(separator.text));
}

/** A number rendered with `digits` decimals; '—' for anything that is not a finite number. */
export function fixed(x: unknown, digits: number): string {
  return typeof x === 'number' && Number.isFinite(x) ? x.toFixed(digits) : '—';
}
