/**
 * Which day a run's chat template renders with, when its template calls strftime_now
 * (engine/text/templateDate.ts): --template-date when given; a resumed run's recorded day; else
 * today (UTC). A template that reads no date records none, so runs of every other model keep
 * manifests (and records) as they were.
 */
import { parseTemplateDate, todayForTemplates } from '../engine/index';
import type { Deployment, RunManifest } from '../contract';

export function chosenTemplateDate(given: string | undefined, resumed: RunManifest | undefined, readsDate: boolean | undefined, deployment: Deployment, warn: (message: string) => void): string | undefined {
  if (given !== undefined) parseTemplateDate(given, '--template-date');
  if (deployment.prompt !== 'chat' || readsDate !== true) {
    if (given !== undefined) warn(`--template-date ${given}: the ${deployment.prompt === 'chat' ? 'chat template calls no strftime_now' : 'raw prompt has no chat template'}, so the date changes no prompt; it is not recorded`);
    return undefined;
  }
  if (given !== undefined) return given;
  if (!resumed) return todayForTemplates();
  if (resumed.deployment.templateDate !== undefined) return resumed.deployment.templateDate;
  // A run made before the day was recorded rendered each prompt with the clock of its moment: the day it started is the best guess.
  const day = resumed.createdAt.slice(0, 10);
  warn(
    `the chat template calls strftime_now, and ${resumed.name}'s manifest records no template date (made before it was): ` +
      `the questions left are rendered with the day the run started, ${day}; questions it rendered on another day had another date in their prompts`,
  );
  return day;
}
