/**
 * The headline of a run of few questions (fewer than RATE_MIN_QUESTIONS): instead of rate tiles
 * over n = 1, the questions' own story (questionStory.ts) — counts over the run, a card per
 * question when there are at most STORY_MAX_QUESTIONS (deployed answer against gold with the rule
 * that read it, per probe which attempts were right and by which route or seed, the blind picks,
 * the repair row), and the steps the run skipped with the reason. All run text goes in as text.
 */
import '../../styles/story.css';
import { type QuestionRecord, type RunManifest, type RunSummary, auditedCount, contextSkipHint, skippedText, answerText, attemptText, blindLine, countsText, gradingText, lineText, notAuditedText, probeLine, questionsText, questionStory, questionTitle, readingText, repairLine, skippedSteps, storyCounts, STORY_MAX_QUESTIONS, STORY_WORDS, type QuestionStory } from '../../../src/contract';
import { h, replaceChildren } from '../common/element';
import { routeStrip } from '../questions/routeStrip';

export interface StoryInput {
  records: readonly QuestionRecord[];
  manifest: RunManifest | undefined;
  summary: RunSummary | undefined;
  numBlocks: number;
  live: boolean;
  /** Opens a question in the table and the detail pane. */
  select: (id: string) => void;
}

function verdict(correct: boolean): HTMLElement {
  return correct
    ? h('span', { class: 'mark mark-correct', title: 'correct' }, '✓', h('span', { class: 'sr-only' }, ' correct'))
    : h('span', { class: 'mark mark-wrong', title: 'wrong' }, '✗', h('span', { class: 'sr-only' }, ' wrong'));
}

function countsLine(records: readonly QuestionRecord[], live: boolean): HTMLElement {
  const c = storyCounts(records);
  return h('p', { class: 'story-counts' }, h('strong', {}, questionsText(c.n, live)), ` · ${countsText(c, records.some((r) => r.repair))}`);
}

function card(story: QuestionStory, input: StoryInput): HTMLElement {
  const open = h('button', { type: 'button', class: 'story-open', title: 'Show this question in the table and its detail' }, questionTitle(story.id));
  open.addEventListener('click', () => input.select(story.id));
  const head = h('header', { class: 'story-head' }, h('h2', {}, open), h('span', { class: 'muted' }, lineText(story.line)));
  const question = h('p', { class: 'story-question', title: story.question }, story.question);
  if (story.skipped) {
    return h('section', { class: 'story-card', 'data-id': story.id }, head, question, h('p', { class: 'story-skipped-question' }, notAuditedText(story.skipped)));
  }
  const d = story.deployed;
  const grading = gradingText(input.manifest, d.truncated);
  const deployed = h('div', { class: 'story-deployed' },
    h('span', { class: 'story-label' }, 'Deployed'), ' ',
    h('span', { class: 'answer story-answer' }, answerText(d.answer)), ' ', verdict(d.correct),
    h('span', { class: 'muted' }, ' vs gold '), h('span', { class: 'answer story-gold' }, answerText(story.gold)),
    h('div', { class: 'story-rule muted' }, readingText(d, grading)));

  const probes = h('ul', { class: 'story-probes', 'aria-label': 'Probes' });
  for (const p of story.probes) {
    const right = h('div', { class: 'story-right' });
    for (const r of p.right) {
      right.appendChild(h('span', { class: 'story-attempt' },
        h('span', { class: 'muted' }, attemptText(r.attempt)), ' ',
        r.route ? routeStrip(r.route, input.numBlocks) : h('span', {}, r.seed !== undefined ? `seed ${r.seed}` : ''),
        ' ', h('span', { class: 'answer' }, answerText(r.answer))));
    }
    const answers = p.answers.length > 0 ? h('div', { class: 'story-answers muted' }, `answers: ${p.answers.map((a) => `${answerText(a.answer)} ×${a.count}`).join(', ')}`) : null;
    probes.appendChild(h('li', { class: `story-probe ${p.reachable ? 'story-reached' : 'story-unreached'}`, 'data-probe': p.probe }, h('div', { class: 'story-probe-line' }, probeLine(p)), right.childElementCount > 0 ? right : null, answers));
  }
  const blind = story.blind.length > 0 ? h('ul', { class: 'story-blind', 'aria-label': STORY_WORDS.blindPicks }, ...story.blind.map((b) => h('li', {}, blindLine(b)))) : null;
  const repair = story.repair ? h('p', { class: 'story-repair' }, repairLine(story.repair)) : null;
  return h('section', { class: 'story-card', 'data-id': story.id }, head, question, deployed,
    story.probes.length > 0 ? probes : h('p', { class: 'muted' }, STORY_WORDS.noProbe),
    blind ? h('div', { class: 'story-sub' }, h('h3', {}, STORY_WORDS.blindPicks), blind) : null,
    repair ? h('div', { class: 'story-sub' }, h('h3', {}, 'Repair scan'), repair) : null);
}

/** Fills `target` (the headline) with the story of a few-question run. */
export function renderStory(target: HTMLElement, input: StoryInput): void {
  // Nothing finished yet: nothing to tell (the status line says the run is going).
  if (input.records.length === 0) {
    replaceChildren(target);
    return;
  }
  // Skipped questions have no story beyond "not audited": the cards and "more than" count the audited ones.
  const audited = input.records.filter((r) => !r.skipped);
  const shown = input.records.length <= STORY_MAX_QUESTIONS ? input.records : audited.length <= STORY_MAX_QUESTIONS ? audited : [];
  const stories = shown.map(questionStory);
  const steps = skippedSteps(input.manifest, input.live ? undefined : input.summary, input.records);
  const more = audited.length > STORY_MAX_QUESTIONS
    ? h('p', { class: 'muted story-more' }, `More than ${STORY_MAX_QUESTIONS} questions: select one in the table for its story (detail pane).`)
    : null;
  // Nothing audited: what happened and what would audit them, rather than an empty result.
  // (The status line above says how many and why; this says what to change.)
  const counted = audited.length === 0 ? auditedCount(input.records) : undefined;
  const nothing = counted && skippedText(counted)
    ? h('p', { class: 'story-nothing-audited' }, `None of the ${questionsText(counted.total)} was audited.`, counted.context ? ` ${contextSkipHint(counted.context)}` : '')
    : null;
  const notes = steps.length > 0 && !nothing
    ? h('details', { class: 'story-steps', open: true },
        h('summary', {}, STORY_WORDS.skippedSteps),
        h('ul', {}, ...steps.map((s) => h('li', { 'data-step': s.step }, h('strong', {}, s.step), `: ${s.why}`))))
    : null;
  replaceChildren(target,
    h('div', { class: 'story', 'aria-label': 'The run question by question' },
      countsLine(input.records, input.live),
      nothing,
      stories.length > 0 ? h('div', { class: 'story-cards' }, ...stories.map((s) => card(s, input))) : null,
      more,
      notes));
}
