/** Shared fixtures for the audit unit tests: a small GSM8K dataset and run settings. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseDataset, type Dataset } from '../../../src/audit/dataset/dataset';
import { DEFAULT_DEPLOYMENT } from '../../../src/audit/probes/deployment';
import { DEFAULT_SEARCH } from '../../../src/audit/probes/routeSearch';
import { DEFAULT_GRADING } from '../../../src/audit/answers/gradingSettings';
import { DEFAULT_PROBE_DECODING } from '../../../src/audit/probes/probeDecoding';
import type { RunManifest, RunSettings } from '../../../src/contract';
import { globalRoutePool } from '../../../src/audit/runner/questionPipeline';
import { FakeGenerator } from './fakeGenerator';

export function gsm8kText(n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) lines.push(JSON.stringify({ id: `q${i}`, question: `Question number ${i}: what is ${i} plus ${i * 3}?`, answer: `${i} + ${i * 3}\n#### ${i * 4}` }));
  return lines.join('\n') + '\n';
}

export function smallDataset(n = 24): Dataset {
  return parseDataset('/virtual/test.jsonl', gsm8kText(n));
}

export function fakeFor(dataset: Dataset, numBlocks = 8, abortAfter?: { calls: number; controller: AbortController }): FakeGenerator {
  return new FakeGenerator(numBlocks, new Map(dataset.questions.map((q) => [q.text, q.gold])), undefined, abortAfter);
}

export function settingsFor(numBlocks = 8, overrides: Partial<RunSettings> = {}): RunSettings {
  const seed = 11;
  return {
    deployment: { ...DEFAULT_DEPLOYMENT },
    probes: [
      { name: 'sample', budget: 6 },
      { name: 'routes', budget: 6 },
      { name: 'search', budget: 6 },
    ],
    probeDecoding: { ...DEFAULT_PROBE_DECODING },
    selectors: ['majority', 'confidence', 'global-route'],
    repair: { enabled: true, referenceProbes: ['sample', 'routes', 'search'] },
    globalRoutes: { count: 5, routes: globalRoutePool(numBlocks, seed, 5, 4) },
    seeds: { run: seed },
    routeSpace: { maxEdits: 4 },
    search: { ...DEFAULT_SEARCH },
    grading: { ...DEFAULT_GRADING },
    selection: { limit: null, ids: null },
    ...overrides,
  };
}

/** A manifest of a run with these settings, every other field a fixed stand-in (for resume/compare checks). */
export function manifestFor(settings: RunSettings, extra: Partial<RunManifest> = {}): RunManifest {
  return {
    ...settings,
    ...extra,
    name: 'x',
    createdAt: '',
    tool: { name: 'reach-audit', version: '0' },
    engine: { version: '1' },
    model: { path: '/m', contentHash: 'h', numBlocks: 8 },
    dataset: { path: '/d', contentHash: 'd', format: 'gsm8k', schema: 'gsm8k', questions: 24 },
  };
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-test-'));
}
