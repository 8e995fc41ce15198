import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failureActions } from '../../../src/extension/commands/failureActions';

test('a server that refused the key offers Set Server API Key… before Show Log; other failures Show Log alone', () => {
  assert.deepEqual(failureActions('http://127.0.0.1:8080/v1: the server answered 401: missing or wrong bearer token'), ['Set Server API Key…', 'Show Log']);
  assert.deepEqual(failureActions('http://h/v1: the server answered 403: forbidden'), ['Set Server API Key…', 'Show Log']);
  assert.deepEqual(failureActions('http://h/v1: the server answered 500: internal error'), ['Show Log']);
  assert.deepEqual(failureActions('question 401 has no answer'), ['Show Log']);
});
