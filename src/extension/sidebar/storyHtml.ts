/**
 * The Audit side view's story of a run of few questions (questionStory.ts, as the panel tells it):
 * counts instead of rates, one section per question when there are at most STORY_MAX_QUESTIONS,
 * and the skipped steps with their reasons. HTML with every run string escaped; pure.
 */
import type { QuestionRecord, RunManifest, RunSummary } from '../../contract';
import {
  answerText,
  blindLine,
  gradingText,
  ofText,
  probeLine,
  questionStory,
  repairLine,
  routeText,
  ruleText,
  skippedSteps,
  storyCounts,
  STORY_MAX_QUESTIONS,
  type QuestionStory,
  type SkippedStep,
  type StoryCounts,
} from '../../contract/questionStory';
import { escapeHtml } from '../panel/panelHtml';

/** What the side view needs to tell a few-question run's story. */
export interface SidebarStory {
  counts: StoryCounts;
  /** One per question, only when the run has at most STORY_MAX_QUESTIONS. */
  stories: QuestionStory[];
  steps: SkippedStep[];
  /** How the run grades, for an output that was not cut and for one that was. */
  grading?: { whole: string; cut: string };
}

export function sidebarStory(records: readonly QuestionRecord[], manifest: RunManifest | undefined, summary: RunSummary | undefined): SidebarStory {
  const whole = gradingText(manifest, false);
  const cut = gradingText(manifest, true);
  return {
    counts: storyCounts(records),
    stories: records.length <= STORY_MAX_QUESTIONS ? records.map(questionStory) : [],
    steps: skippedSteps(manifest, summary, records),
    ...(whole && cut ? { grading: { whole, cut } } : {}),
  };
}

export const STORY_STYLE = `
.story-counts { margin: 6px 0; }
.story-q h3 { font-size: 1em; margin: 10px 0 2px; word-break: break-all; }
.story-q p { margin: 2px 0; overflow-wrap: anywhere; }
.story-q ul, .story-steps ul { margin: 2px 0; padding-left: 16px; }
.story-q li { overflow-wrap: anywhere; }
code { font-family: var(--vscode-editor-font-family); }
.right { color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
.wrong { color: var(--vscode-testing-iconFailed, var(--vscode-charts-red)); }
.story-steps h3 { font-size: 0.95em; margin: 10px 0 2px; }
`;

const e = (text: string): string => escapeHtml(text);

function countsHtml(c: StoryCounts): string {
  const parts = [`realized ${ofText(c.realized, c.n)}`];
  for (const r of c.reachable) parts.push(`reachable by ${r.probe} ${ofText(r.count, c.n)}`);
  if (c.reachable.length > 1) parts.push(`by any probe ${ofText(c.reachableAny, c.n)}`);
  if (c.failureSet > 0) parts.push(`failure set ${c.failureSet}`);
  if (c.skipped > 0) parts.push(`${c.skipped} not audited (prompt too long)`);
  return `<p class="story-counts"><strong>${e(`${c.n} question${c.n === 1 ? '' : 's'}`)}</strong> · ${e(parts.join(' · '))}</p>`;
}

function questionHtml(s: QuestionStory, gradings: SidebarStory['grading']): string {
  const head = `<h3>${e(`Question ${s.id}`)} <span class="muted">${e(Number.isFinite(s.line) ? `line ${s.line}` : '')}</span></h3><p class="muted">${e(s.question)}</p>`;
  if (s.skipped) return `<section class="story-q">${head}<p>${e(`Not audited: ${s.skipped.message}`)}</p></section>`;
  const d = s.deployed;
  const grading = d.truncated ? gradings?.cut : gradings?.whole;
  const deployed = `<p>Deployed <code>${e(answerText(d.answer))}</code> <span class="${d.correct ? 'right' : 'wrong'}">${d.correct ? '✓ right' : '✗ wrong'}</span> vs gold <code>${e(answerText(s.gold))}</code></p>` +
    `<p class="muted">${e(`${ruleText(d.rule)}${d.truncated ? ' · cut at the token limit' : ''}${grading ? ` · ${grading}` : ''}`)}</p>`;
  const probes = s.probes.map((p) => {
    const right = p.right.map((r) => `<li>${e(`#${r.attempt + 1} ${r.route ? `route ${routeText(r.route)}` : r.seed !== undefined ? `seed ${r.seed}` : ''} → ${answerText(r.answer)}`)}</li>`).join('');
    return `<li>${e(probeLine(p))}${right ? `<ul>${right}</ul>` : ''}</li>`;
  }).join('');
  const blind = s.blind.length ? `<p>Answer-blind picks</p><ul>${s.blind.map((b) => `<li>${e(blindLine(b))}</li>`).join('')}</ul>` : '';
  const repair = s.repair ? `<p>${e(repairLine(s.repair))}</p>` : '';
  return `<section class="story-q">${head}${deployed}${probes ? `<ul>${probes}</ul>` : '<p class="muted">No probe ran on this question.</p>'}${blind}${repair}</section>`;
}

/** The story block of the side view. */
export function storyHtml(story: SidebarStory): string {
  const more = story.stories.length === 0 && story.counts.n > STORY_MAX_QUESTIONS ? `<p class="muted">${e(`More than ${STORY_MAX_QUESTIONS} questions: open the panel for each question's story.`)}</p>` : '';
  const steps = story.steps.length ? `<section class="story-steps"><h3>Skipped for so few questions</h3><ul>${story.steps.map((s) => `<li><strong>${e(s.step)}</strong>: ${e(s.why)}</li>`).join('')}</ul></section>` : '';
  return `<div class="story">${countsHtml(story.counts)}${story.stories.map((s) => questionHtml(s, story.grading)).join('')}${more}${steps}</div>`;
}
