/**
 * Builds DOM nodes from trusted structure and untrusted text. Text always goes through
 * textContent (never innerHTML), attributes through setAttribute, so a dataset string such as
 * `<img src=x onerror=…>` stays text. Inline styles are not used (the CSP forbids them); layout
 * that depends on data goes through the CSSOM (element.style), which the CSP allows.
 */

export type Child = Node | string | null | undefined | false;

export interface Attributes {
  class?: string;
  [name: string]: string | number | boolean | undefined;
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes?: Attributes, ...children: Child[]): HTMLElementTagNameMap[K];
export function h(tag: string, attributes?: Attributes, ...children: Child[]): HTMLElement;
export function h(tag: string, attributes: Attributes = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name.startsWith('on')) throw new Error(`event handler attribute '${name}' is not allowed; use addEventListener`);
    element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/** Replaces all children of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

export { count, intervalText } from './numberText';
