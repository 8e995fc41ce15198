import assert from 'node:assert/strict';
import { test } from 'node:test';
import { correctByItems, markersProblem, regradeArgs, regradeFailure, regradeOutcomeText, runHasThoughts, truncatedItems, type ThoughtsOf } from '../../../src/extension/commands/regradeChoices';

test("each grading picker lists the default first and marks the run's own choice", () => {
  assert.deepEqual(truncatedItems('lenient').map((i) => [i.value, /\(default\)$/.test(i.description), /this run's/.test(i.description)]), [['strict', true, false], ['lenient', false, true]]);
  const correct = correctByItems('stated');
  assert.deepEqual(correct.map((i) => i.value), ['stated', 'strict', 'flexible']);
  assert.match(correct[0].description, /\(default, this run's\)$/);
  assert.match(correct[1].description, /lm-eval strict-match/);
});

test('thinking markers are asked of a run with a thought, or whose markers were not the default', () => {
  const record = (thought?: 'finished'): ThoughtsOf => ({ realized: { ...(thought ? { thought } : {}) }, probes: { sample: { attempts: [{}] } } });
  assert.equal(runHasThoughts(undefined, [record()]), false);
  assert.equal(runHasThoughts({ open: '<think>', close: '</think>', from: 'default', startsInThought: false }, [record()]), false);
  assert.equal(runHasThoughts(undefined, [record('finished')]), true);
  assert.equal(runHasThoughts({ open: '<t>', close: '</t>', from: 'tokenizer', startsInThought: false }, [record()]), true);
  const inAttempt: ThoughtsOf = { realized: {}, probes: { sample: { attempts: [{ thought: 'unfinished' }] } } };
  assert.equal(runHasThoughts(undefined, [inAttempt]), true);
  assert.equal(markersProblem('<think>,</think>'), undefined);
  assert.match(markersProblem('<think>') ?? '', /separated by a comma/);
  assert.match(markersProblem('<t>,<t>') ?? '', /must differ/);
});

test("regrade is given both rules (its defaults are not the run's), and the markers, dataset or pattern when chosen", () => {
  assert.deepEqual(regradeArgs('/r', '/o', { gradeTruncated: 'strict', correctBy: 'stated' }), ['regrade', '/r', '--out', '/o', '--grade-truncated', 'strict', '--correct-by', 'stated']);
  assert.deepEqual(regradeArgs('/r', '/o', { gradeTruncated: 'lenient', correctBy: 'flexible', thinkingMarkers: '<a>,</a>', data: '/d.jsonl', pattern: 'A: (\\d)' }).slice(8), ['--thinking-markers', '<a>,</a>', '--data', '/d.jsonl', '--pattern', 'A: (\\d)']);
});

test("the notification counts the changed verdicts from regrade's own words", () => {
  const changed = regradeOutcomeText('reach-audit: regraded 5 questions (5 outputs) into /w/.reach-audit/runs/x-regraded: 2 verdicts changed; realized changed on 2 questions; reachable changed on none.\nreach-audit: read 5 outputs whole, …\n');
  assert.deepEqual(changed, { changed: 2, text: '2 verdicts changed (realized on 2 questions).' });
  const probes = regradeOutcomeText('reach-audit: regraded 3 questions (9 outputs) into /o: 1 verdict changed; realized changed on 0 questions; reachable changed on sample 1, routes 0.\n');
  assert.deepEqual(probes, { changed: 1, text: '1 verdict changed (realized on 0 questions; reachable on sample 1, routes 0).' });
  assert.deepEqual(regradeOutcomeText('reach-audit: regraded 3 questions (9 outputs) into /o: 0 verdicts changed; realized changed on 0 questions; reachable changed on none.\n'), { changed: 0, text: 'no verdict changed.' });
  assert.match(regradeOutcomeText('… into /o: 4 verdicts changed; realized changed on 1 question; reachable changed on none.\nreach-audit: failure set recomputed: 3 -> 2 questions. The repair scan is STALE: …').text, /repair scan is stale/);
});

test('a failed regrade names what is missing and what the user can give', () => {
  assert.deepEqual(regradeFailure("warning\nreach-audit regrade: /tmp/gone.jsonl: the run's log is not there; give it with --data LOG\n", 1), { message: "/tmp/gone.jsonl: the run's log is not there; give it with --data LOG", fix: 'log' });
  assert.equal(regradeFailure("reach-audit regrade: /d.jsonl: the run's dataset is not there; give it with --data FILE\n", 1).fix, 'data');
  assert.equal(regradeFailure("reach-audit regrade: /d.jsonl: not the dataset this run audited (its content hash differs from manifest.json's)\n", 1).fix, 'data');
  assert.equal(regradeFailure('reach-audit regrade: /r is a regex-format run: give its prediction pattern with --pattern REGEX\n', 1).fix, 'pattern');
  assert.deepEqual(regradeFailure('', 3), { message: 'reach-audit regrade exited with 3' });
});
