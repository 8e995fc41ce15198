import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkpointStep, compareCheckpointNames, inTrainingOrder } from '../../../src/service/checkpointOrder';

test('the step is the last number in the name, read as a number', () => {
  assert.equal(checkpointStep('checkpoint-1000'), 1000);
  assert.equal(checkpointStep('global_step_500'), 500);
  assert.equal(checkpointStep('step500'), 500);
  assert.equal(checkpointStep('run2-step-0300'), 300);
  assert.equal(checkpointStep('final'), undefined);
  assert.equal(checkpointStep('ckpt-99999999999999999999'), undefined, 'beyond a safe integer is not a step');
});

test('checkpoint-100 before checkpoint-1000 (a string sort would not); names without a number last', () => {
  const names = ['checkpoint-1000', 'final', 'checkpoint-100', 'checkpoint-20', 'base', 'checkpoint-300'];
  assert.deepEqual([...names].sort(), ['base', 'checkpoint-100', 'checkpoint-1000', 'checkpoint-20', 'checkpoint-300', 'final'], 'the string order this guards against');
  assert.deepEqual(inTrainingOrder(names), ['checkpoint-20', 'checkpoint-100', 'checkpoint-300', 'checkpoint-1000', 'base', 'final']);
});

test('equal steps are ordered by name, so the order does not depend on listing order', () => {
  assert.ok(compareCheckpointNames('a-step-5', 'b-step-5') < 0);
  assert.ok(compareCheckpointNames('b-step-5', 'a-step-5') > 0);
  assert.equal(compareCheckpointNames('step-5', 'step-5'), 0);
  assert.deepEqual(inTrainingOrder(['b-step-5', 'a-step-5', 'step-4']), ['step-4', 'a-step-5', 'b-step-5']);
});
