/**
 * The command behind the shown run: the `reach-audit audit` line from its manifest (computed by
 * the extension), shown under the run's title with a Copy button. The line is model and dataset
 * text (paths, a system message), so it goes in as text only; copying asks the host, which owns
 * the clipboard.
 */
import type { RunCommandLine } from '../../../src/contract';
import { h, replaceChildren } from '../common/element';

export class RunCommandView {
  readonly element = h('div', { class: 'run-command', hidden: true });
  private readonly code = h('code', { class: 'run-command-line' });
  private readonly gaps = h('div', { class: 'run-command-gaps muted' });
  private readonly copy = h('vscode-button', { class: 'run-command-copy', appearance: 'secondary', title: 'Copy the command line' }, 'Copy');

  constructor(onCopy: () => void) {
    this.copy.addEventListener('click', onCopy);
    replaceChildren(this.element, h('span', { class: 'run-command-label muted' }, 'Run again:'), this.code, this.copy, this.gaps);
  }

  show(line: RunCommandLine | undefined): void {
    if (!line || typeof line.command !== 'string') {
      this.element.hidden = true;
      return;
    }
    this.element.hidden = false;
    this.code.textContent = line.command;
    // The whole line on hover: a long one is cut with an ellipsis.
    this.code.title = line.command;
    const gaps = Array.isArray(line.gaps) ? line.gaps.filter((g) => typeof g === 'string') : [];
    this.gaps.textContent = gaps.length > 0 ? `Not in the command: ${gaps.join('; ')}` : '';
    this.gaps.hidden = gaps.length === 0;
  }
}
