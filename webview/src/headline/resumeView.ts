/**
 * The header's Resume: shown while the run (or comparison) in the panel stopped before its end —
 * cancelled, failed, or cut by a window reload — and hidden while it goes and once it is finished.
 * The host decides (it reads the run folders); the button asks it to continue the run in its
 * folder. A sentence stands beside it only when no status line says the run stopped.
 */
import type { ResumeOffer } from '../../../src/contract';
import { h, replaceChildren } from '../common/element';

export class ResumeView {
  readonly element = h('div', { class: 'run-resume', hidden: true });
  private readonly note = h('span', { class: 'run-resume-note' });
  private readonly button = h('vscode-button', { class: 'run-resume-button', appearance: 'primary' }, 'Resume');
  /** Pressed, and the host has not answered yet: hidden, so a second press cannot start a second resume. */
  private pressed = false;

  constructor(onResume: () => void) {
    this.button.addEventListener('click', () => {
      if (this.pressed) return;
      this.pressed = true;
      this.element.hidden = true;
      onResume();
    });
    replaceChildren(this.element, this.note, this.button);
  }

  /** The host's new word on Resume: a press is answered. */
  answered(): void {
    this.pressed = false;
  }

  /** `running`: the panel's status says the run is going (a stale offer is not shown then). */
  show(offer: ResumeOffer | undefined, running: boolean): void {
    const shown = offer !== undefined && !running && !this.pressed;
    this.element.hidden = !shown;
    this.note.textContent = shown && typeof offer.note === 'string' ? offer.note : '';
    this.note.hidden = this.note.textContent === '';
    const what = offer?.comparison ? 'Resume the comparison: finish both runs in their folders, then compare them' : 'Resume the run in its folder: its finished questions are kept';
    this.button.setAttribute('title', what);
    this.button.setAttribute('aria-label', what);
  }
}
