/**
 * The server key's way to the engine child (src/service/serverKey.ts): the request names the
 * variable only on servers and only with a key stored, never holds the key, and drops a variable
 * named by anyone else; on the local engine the server settings are left out, so a base URL kept
 * in the settings does not stop a local audit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SERVER_KEY_ENV, serverKeyEnv, withServerKey } from '../../../src/service/serverKey';
import { checkBackendOptions } from '../../../src/service/backend';

const remote = { model: '/m', data: '/d', backend: 'openai', baseUrl: ['http://127.0.0.1:8000/v1'], apiModel: 'm', concurrency: 2, timeout: 30, maxRetries: 1 };

test('on servers with a key stored: the request names the variable, not the key', () => {
  const sent = withServerKey(remote, true);
  assert.deepEqual(sent, { ...remote, apiKeyEnv: SERVER_KEY_ENV });
  assert.deepEqual(serverKeyEnv('sk-abc'), { [SERVER_KEY_ENV]: 'sk-abc' });
  assert.ok(!JSON.stringify(sent).includes('sk-abc'));
});

test('on servers without a key: no variable named (a server without auth needs none); none in the environment', () => {
  assert.deepEqual(withServerKey(remote, false), remote);
  assert.deepEqual(serverKeyEnv(undefined), {});
  assert.deepEqual(serverKeyEnv(''), {});
});

test("a variable named by the caller is never sent: the engine reads no other secret on the extension's behalf", () => {
  assert.equal(withServerKey({ ...remote, apiKeyEnv: 'AWS_SECRET_ACCESS_KEY' }, false).apiKeyEnv, undefined);
  assert.equal(withServerKey({ ...remote, apiKeyEnv: 'AWS_SECRET_ACCESS_KEY' }, true).apiKeyEnv, SERVER_KEY_ENV);
});

test('on the local engine the server settings are left out, so the request passes the backend checks', () => {
  const settings = { ...remote, backend: undefined };
  // As they stand, the command line's check refuses them: a base URL is for --backend openai.
  assert.throws(() => checkBackendOptions(settings), /--base-url is for --backend openai/);
  for (const backend of [undefined, 'local']) {
    const sent = withServerKey({ ...remote, backend, apiKeyEnv: SERVER_KEY_ENV }, true);
    assert.deepEqual(sent, { model: '/m', data: '/d', backend });
    assert.doesNotThrow(() => checkBackendOptions(sent));
  }
  // The input is not changed.
  assert.deepEqual(remote.baseUrl, ['http://127.0.0.1:8000/v1']);
});
