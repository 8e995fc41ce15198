/**
 * --route and --silence-mlp of forward and generate: a bad element is named by its position, as the
 * engine names one from a request body (issue 39, weak case: `0.5`, `"0"` and `1e999` got the
 * whole-list message "expected a comma-separated list … got '…'", with no position).
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { routeFlags } from '../../../src/cli/flags';

describe('--route and --silence-mlp elements', () => {
  const bad: [string, RegExp][] = [
    ['[0.5]', /^--route\[0\]: block index 0\.5 is not a whole number; expected a block index in 0\.\.7$/],
    ['0,0.5', /^--route\[1\]: block index 0\.5 is not a whole number/],
    ['["0"]', /^--route\[0\]: block index "0" is not a whole number/],
    ['[1e999]', /^--route\[0\]: block index Infinity is not a whole number/],
    ['1,2,1e999', /^--route\[2\]: block index Infinity is not a whole number/],
    ['3,8', /^--route\[1\]: block index 8 is out of range; the model has blocks 0\.\.7$/],
    ['1,,2', /^--route\[1\]: block index "" is not a whole number/],
    ['[0,1', /^--route: expected a list of block indices like 0,1,2 or a JSON array like \[0,1,2\], got '\[0,1'$/],
    ['[]', /^--route: expected a non-empty list of block indices in 0\.\.7$/],
    ['', /^--route: expected a list of block indices like 0,1,2, got ''$/],
  ];
  for (const [value, expected] of bad) {
    it(`--route '${value}'`, () => {
      assert.throws(() => routeFlags({ route: value }, 8), (e: Error) => expected.test(e.message));
    });
  }
  it('reads a list and a JSON array alike, and names a bad --silence-mlp element', () => {
    assert.deepEqual(routeFlags({ route: '0, 1,1,3' }, 8).route, [0, 1, 1, 3]);
    assert.deepEqual(routeFlags({ route: '[0,1,1,3]' }, 8).route, [0, 1, 1, 3]);
    assert.deepEqual(routeFlags({ 'silence-mlp': '2,5' }, 8).silencedMlp, [2, 5]);
    assert.throws(() => routeFlags({ 'silence-mlp': '2,x' }, 8), /--silence-mlp\[1\]: block index "x" is not a whole number/);
  });
});
