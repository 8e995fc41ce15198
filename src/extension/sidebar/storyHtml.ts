/**
 * The Audit side view's story of a run of few questions (questionStory.ts, as the panel tells it):
 * counts instead of rates, one section per question when there are at most STORY_MAX_QUESTIONS,
 * and the skipped steps with their reasons. HTML with every run string escaped; pure.
 */
import { type QuestionRecord, type RunManifest, type RunSummary, answerText, attemptText, blindLine, countsText, gradingText, lineText, notAuditedText, probeLine, questionsText, questionStory, questionTitle, readingText, repairLine, routeText, skippedSteps, storyCounts, STORY_MAX_QUESTIONS, STORY_WORDS, type QuestionStory, type SkippedStep, type StoryCounts } from '../../contract';
import { escapeHtml } from '../../common';

/** What the side view needs to tell a few-question run's story. */
export interface SidebarStory {
  counts: StoryCounts;
  /** The run scanned for repairs (its failure set is counted, 0 included). */
  repairScanned: boolean;
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
    repairScanned: records.some((r) => r.repair),
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

function countsHtml(c: StoryCounts, repairScanned: boolean): string {
  return `<p class="story-counts"><strong>${e(questionsText(c.n))}</strong> · ${e(countsText(c, repairScanned))}</p>`;
}

function questionHtml(s: QuestionStory, gradings: SidebarStory['grading']): string {
  const head = `<h3>${e(questionTitle(s.id))} <span class="muted">${e(lineText(s.line))}</span></h3><p class="muted">${e(s.question)}</p>`;
  if (s.skipped) return `<section class="story-q">${head}<p>${e(notAuditedText(s.skipped))}</p></section>`;
  const d = s.deployed;
  const grading = d.truncated ? gradings?.cut : gradings?.whole;
  const deployed = `<p>Deployed <code>${e(answerText(d.answer))}</code> <span class="${d.correct ? 'right' : 'wrong'}">${d.correct ? STORY_WORDS.right : STORY_WORDS.wrong}</span> vs gold <code>${e(answerText(s.gold))}</code></p>` +
    `<p class="muted">${e(readingText(d, grading))}</p>`;
  const probes = s.probes.map((p) => {
    const right = p.right.map((r) => `<li>${e(`${attemptText(r.attempt)} ${r.route ? `route ${routeText(r.route)}` : r.seed !== undefined ? `seed ${r.seed}` : ''} → ${answerText(r.answer)}`)}</li>`).join('');
    return `<li>${e(probeLine(p))}${right ? `<ul>${right}</ul>` : ''}</li>`;
  }).join('');
  const blind = s.blind.length ? `<p>${e(STORY_WORDS.blindPicks)}</p><ul>${s.blind.map((b) => `<li>${e(blindLine(b))}</li>`).join('')}</ul>` : '';
  const repair = s.repair ? `<p>${e(repairLine(s.repair))}</p>` : '';
  return `<section class="story-q">${head}${deployed}${probes ? `<ul>${probes}</ul>` : `<p class="muted">${e(STORY_WORDS.noProbe)}</p>`}${blind}${repair}</section>`;
}

/** The story block of the side view. */
export function storyHtml(story: SidebarStory): string {
  const more = story.stories.length === 0 && story.counts.n > STORY_MAX_QUESTIONS ? `<p class="muted">${e(`More than ${STORY_MAX_QUESTIONS} questions: open the panel for each question's story.`)}</p>` : '';
  const steps = story.steps.length ? `<section class="story-steps"><h3>${e(STORY_WORDS.skippedSteps)}</h3><ul>${story.steps.map((s) => `<li><strong>${e(s.step)}</strong>: ${e(s.why)}</li>`).join('')}</ul></section>` : '';
  return `<div class="story">${countsHtml(story.counts, story.repairScanned)}${story.stories.map((s) => questionHtml(s, story.grading)).join('')}${more}${steps}</div>`;
}
