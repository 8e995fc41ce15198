/**
 * Text that is cut in the middle, not at the end, when its cell is too narrow: ids such as
 * `arith-A00-0000` differ in their last characters, so an end ellipsis makes every row look the
 * same. The text is split into a head that shrinks with an ellipsis and a tail that shows its end
 * (pure CSS, so a recycled table row costs no measuring; panel.css says how it narrows);
 * textContent stays the whole value.
 */
import { h } from './element';

/** Where the tail starts: the last separator-delimited part (at most 10 characters), else the last few. */
export function tailStart(text: string): number {
  if (text.length <= 8) return text.length;
  const separator = Math.max(text.lastIndexOf('-'), text.lastIndexOf('_'), text.lastIndexOf('/'), text.lastIndexOf(':'), text.lastIndexOf('.'));
  // A head of at least two characters: one to show before the ellipsis, one it stands for.
  const fromSeparator = separator > 1 && text.length - separator <= 10 ? separator : -1;
  return fromSeparator >= 0 ? fromSeparator : text.length - Math.min(6, Math.floor(text.length / 2));
}

/** A span showing `text` truncated in the middle when it does not fit. */
export function middleText(text: string, className = ''): HTMLElement {
  const at = tailStart(text);
  return h(
    'span',
    { class: `mid ${className}`.trim() },
    h('span', { class: 'mid-head' }, text.slice(0, at)),
    at < text.length ? h('span', { class: 'mid-tail' }, h('span', { class: 'mid-tail-text' }, text.slice(at))) : null,
  );
}
