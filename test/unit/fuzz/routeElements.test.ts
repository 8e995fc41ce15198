/**
 * Route and silenced-MLP lists from untrusted JSON (serve --http bodies, --route): the error names
 * the bad element and shows the value as it came (issue 39, weak case: `[0.5]`, `["0"]`, `[1e999]`
 * were all "out of range", with no position and "0" shown as a number).
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkRoute, checkSilenced } from '../../../src/engine';

describe('route elements named in errors', () => {
  const cases: [unknown[], RegExp][] = [
    [[0, 0.5], /^route\[1\]: block index 0\.5 is not a whole number; expected a block index in 0\.\.7$/],
    [['0'], /^route\[0\]: block index "0" is not a whole number; expected a block index in 0\.\.7$/],
    [[1, 2, JSON.parse('1e999')], /^route\[2\]: block index Infinity is not a whole number/],
    [[null], /^route\[0\]: block index object is not a whole number/],
    [[3, 8], /^route\[1\]: block index 8 is out of range; the model has blocks 0\.\.7$/],
  ];
  for (const [route, expected] of cases) {
    it(`${JSON.stringify(route)}`, () => {
      assert.throws(() => checkRoute(route as number[], 8), (e: Error) => expected.test(e.message));
    });
  }
  it('silenced MLP blocks too', () => {
    assert.throws(() => checkSilenced([1, '2' as unknown as number], 8), /silenced MLP blocks\[1\]: block index "2" is not a whole number/);
  });
});
