import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AUDIT_FLAGS, AUDIT_OPTIONS, flagsFromOptions, optionsFromFlags, type AuditOptions, type OptionSpec } from '../../../src/service/auditOptions';
import { SERVER_KEY_ENV, withServerKey } from '../../../src/service/serverKey';
import { parseFlags } from '../../../src/cli/flags';

/** A value of the option's kind that its range allows. */
function valueFor(o: OptionSpec): unknown {
  switch (o.kind) {
    case 'boolean':
      return true;
    case 'wholeNumber':
      return (o.min ?? 0) + 3;
    case 'number':
      return [0.5, 1, 2, 10].find((n) => o.range?.allows(n) ?? true);
    case 'strings':
      return o.repeated ? ['a:1', 'b, c'] : ['a', 'b'];
    case 'string':
      return `${o.flag} value`;
  }
}

test('every option of the table, as flags, parses back to the same options (what a VS Code watch hands its child)', () => {
  const options = Object.fromEntries(Object.entries(AUDIT_OPTIONS).map(([k, o]) => [k, valueFor(o)])) as AuditOptions;
  const args = flagsFromOptions(options);
  assert.deepEqual(optionsFromFlags(parseFlags(args, AUDIT_FLAGS)), options);
});

test('unset and false options give no flag; a repeated option repeats, a list is one comma-separated value', () => {
  assert.deepEqual(flagsFromOptions({}), []);
  assert.deepEqual(flagsFromOptions({ repair: false, probes: ['sample:4', 'routes:4'], select: ['majority', 'confidence'], limit: 8 }), [
    '--probe', 'sample:4', '--probe', 'routes:4', '--select', 'majority,confidence', '--limit', '8',
  ]);
});

test('server flags go only with a remote backend, naming the stored key\'s variable, never a key', () => {
  const onServers = flagsFromOptions(withServerKey({ backend: 'openai', baseUrl: ['http://gpu-1:8000/v1'], apiModel: 'm', apiKeyEnv: 'SOMEONE_ELSES' } as AuditOptions, true));
  assert.deepEqual(onServers, ['--backend', 'openai', '--base-url', 'http://gpu-1:8000/v1', '--api-model', 'm', '--api-key-env', SERVER_KEY_ENV]);
  const noKey = flagsFromOptions(withServerKey({ backend: 'openai', baseUrl: ['http://gpu-1:8000/v1'] } as AuditOptions, false));
  assert.equal(noKey.includes('--api-key-env'), false);
  const local = flagsFromOptions(withServerKey({ backend: 'local', baseUrl: ['http://gpu-1:8000/v1'], apiModel: 'm' } as AuditOptions, true));
  assert.deepEqual(local, ['--backend', 'local']);
});
