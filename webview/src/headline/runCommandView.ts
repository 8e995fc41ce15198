/**
 * The command behind the shown run: the `reach-audit audit` line from its manifest (computed by
 * the extension), shown under the run's title with a Copy button. The line is model and dataset
 * text (paths, a system message), so it goes in as text only; copying asks the host, which owns
 * the clipboard. One line keeps the header short; a line cut by its ellipsis gets a Show All
 * button (keyboard and screen reader too, not only the hover title) that wraps it whole.
 */
import type { RunCommandLine } from '../../../src/contract';
import { h, replaceChildren } from '../common/element';

export class RunCommandView {
  readonly element = h('div', { class: 'run-command', hidden: true });
  private readonly code = h('code', { class: 'run-command-line', id: 'run-command-line' });
  private readonly gaps = h('div', { class: 'run-command-gaps muted' });
  private readonly copy = h('vscode-button', { class: 'run-command-copy', appearance: 'secondary', title: 'Copy the command line' }, 'Copy');
  private readonly whole = h('vscode-button', { class: 'run-command-whole', appearance: 'secondary', 'aria-controls': 'run-command-line', 'aria-expanded': 'false', hidden: true }, 'Show All');
  private expanded = false;

  constructor(onCopy: () => void) {
    this.copy.addEventListener('click', onCopy);
    this.whole.addEventListener('click', () => this.setExpanded(!this.expanded));
    replaceChildren(this.element, h('span', { class: 'run-command-label muted' }, 'Run again:'), this.code, this.whole, this.copy, this.gaps);
    // The button is offered only while the line is cut (the header's width changes with the window).
    if (typeof ResizeObserver !== 'undefined') new ResizeObserver(() => this.offerWhole()).observe(this.code);
  }

  show(line: RunCommandLine | undefined): void {
    if (!line || typeof line.command !== 'string') {
      this.element.hidden = true;
      return;
    }
    this.element.hidden = false;
    this.code.textContent = line.command;
    // The whole line on hover too.
    this.code.title = line.command;
    const gaps = Array.isArray(line.gaps) ? line.gaps.filter((g) => typeof g === 'string') : [];
    this.gaps.textContent = gaps.length > 0 ? `Not in the command: ${gaps.join('; ')}` : '';
    this.gaps.hidden = gaps.length === 0;
    this.setExpanded(false);
  }

  private setExpanded(expanded: boolean): void {
    this.expanded = expanded;
    this.code.classList.toggle('run-command-line-whole', expanded);
    this.whole.setAttribute('aria-expanded', String(expanded));
    this.whole.textContent = expanded ? 'Show Less' : 'Show All';
    this.offerWhole();
  }

  private offerWhole(): void {
    this.whole.hidden = !this.expanded && this.code.scrollWidth <= this.code.clientWidth;
  }
}
