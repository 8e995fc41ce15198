import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { AUDIT_OPTIONS, type OptionSpec } from '../../../src/service/auditOptions';
import { configurationContribution, optionSettings, optionsFromSettings, OPTIONS_REACHED_OTHERWISE, restrictedSettings, SETTINGS_SECTION } from '../../../src/service/optionSettings';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

function packageConfiguration(): unknown {
  return (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { contributes: { configuration: unknown } }).contributes.configuration;
}

function propertiesOf(contribution: unknown): Record<string, Record<string, unknown>> {
  return Object.assign({}, ...(contribution as { properties: Record<string, Record<string, unknown>> }[]).map((g) => g.properties));
}

test("package.json's settings are the ones generated from the options table (run node out/tools/writeSettingsSchema.js after changing an option)", () => {
  assert.deepEqual(packageConfiguration(), configurationContribution());
});

test('every audit option is a setting or is named with where VS Code reaches it instead', () => {
  const settings = new Set(optionSettings().map((s) => s.option));
  for (const name of Object.keys(AUDIT_OPTIONS)) {
    const otherwise = (OPTIONS_REACHED_OTHERWISE as Record<string, string | undefined>)[name] !== undefined || (AUDIT_OPTIONS as Record<string, OptionSpec>)[name].cliOnly === true;
    assert.ok(settings.has(name) !== otherwise, `${name}: exactly one of setting / reached otherwise or command line only`);
  }
  const props = propertiesOf(packageConfiguration());
  for (const s of optionSettings()) assert.ok(props[`${SETTINGS_SECTION}.${s.key}`], `${s.option} has no setting in package.json`);
  // The ones a user asked for by name.
  for (const key of ['weights', 'preset', 'correctBy', 'gradeTruncated', 'truncatePrompt', 'searchC', 'searchReward', 'stop', 'system']) assert.ok(props[`reachAudit.${key}`], key);
  assert.deepEqual(props['reachAudit.weights'].enum, ['', 'f32', 'int8']);
});

test('remote servers are settings; the key is not; an untrusted workspace cannot set where the key goes', () => {
  const props = propertiesOf(packageConfiguration());
  for (const key of ['backend', 'baseUrls', 'apiModel', 'concurrency', 'timeout', 'maxRetries']) assert.ok(props[`reachAudit.${key}`], key);
  assert.deepEqual(props['reachAudit.backend'].enum, ['', 'local', 'openai']);
  assert.ok(!Object.keys(props).some((k) => /key/i.test(k)), 'no setting holds a key or names its variable');
  assert.match(String(props['reachAudit.backend'].markdownDescription), /Set Server API Key…/);
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
    contributes: { commands: { command: string; title: string }[] };
  };
  const restricted = pkg.capabilities.untrustedWorkspaces.restrictedConfigurations;
  assert.deepEqual(restricted, restrictedSettings(), 'run node out/tools/writeSettingsSchema.js');
  for (const key of ['modelPath', 'baseModelPath', 'tunedModelPath', 'cacheFolder', 'backend', 'baseUrls']) assert.ok(restricted.includes(`reachAudit.${key}`), key);
  for (const key of restricted) assert.ok(props[key], `${key} is restricted but is no setting`);
  const titles = new Map(pkg.contributes.commands.map((c) => [c.command, c.title]));
  assert.equal(titles.get('reachAudit.setServerApiKey'), 'Set Server API Key…');
  assert.equal(titles.get('reachAudit.clearServerApiKey'), 'Clear Server API Key');
});

test('settings that predate the table keep their names, types and defaults', () => {
  const props = propertiesOf(configurationContribution());
  // The sample probe's temperature, said in words (the flag, --sample-temperature, is the command line's).
  assert.match(String(props['reachAudit.temperature'].markdownDescription), /^Sampling temperature of the `sample` probe/);
  assert.deepEqual(props['reachAudit.defaultProbes'].default, ['sample:16', 'routes:16', 'search:16']);
  assert.equal(props['reachAudit.repair'].default, true);
  assert.equal(props['reachAudit.maxNewTokens'].type, 'integer');
  assert.equal(props['reachAudit.cacheFolder'].scope, 'machine-overridable');
  assert.ok(props['reachAudit.modelPath'] && props['reachAudit.equivalenceMargin']);
});

test('an option added to the table later becomes a setting with no other edit', () => {
  const added: Record<string, OptionSpec> = {
    ...AUDIT_OPTIONS,
    laterSwitch: { flag: 'later-switch', kind: 'boolean', help: 'an on/off option the table gains later' },
    someCount: { flag: 'some-count', kind: 'wholeNumber', min: 2, arg: 'N', help: 'a <count> with *stars*' },
  };
  const groups = configurationContribution(added) as { title: string; properties: Record<string, Record<string, unknown>> }[];
  const more = groups.find((g) => g.title.endsWith('More options'));
  assert.ok(more, 'a More options group');
  assert.equal(more.properties['reachAudit.laterSwitch'].type, 'boolean');
  assert.deepEqual(more.properties['reachAudit.someCount'].type, ['integer', 'null']);
  assert.equal(more.properties['reachAudit.someCount'].minimum, 2);
  // Written for people: the help text, no `--flag` prefix.
  assert.equal(String(more.properties['reachAudit.someCount'].markdownDescription), 'A \\<count\\> with \\*stars\\*');
  const read = optionsFromSettings((k) => ({ laterSwitch: true, someCount: 3 })[k], (p) => p, added);
  assert.deepEqual(read.options, { laterSwitch: true, someCount: 3 });
});

test('settings read back into options: defaults left out, paths resolved, wrong types named', () => {
  const values: Record<string, unknown> = {
    weights: 'int8',
    preset: '',
    defaultProbes: ['routes:4'],
    temperature: 0.7,
    deploymentTemperature: null,
    threads: 0,
    template: 'prompts/t.txt',
    stop: [],
    seed: 'three',
  };
  const read = optionsFromSettings((k) => values[k], (p) => `/ws/${p}`);
  assert.deepEqual(read.options, { weights: 'int8', probes: ['routes:4'], sampleTemperature: 0.7, template: '/ws/prompts/t.txt' });
  assert.deepEqual(read.problems, ['reachAudit.seed: expected a number']);
});

test('cacheFolder says where a remote window lists it (issue 40: missing from the User tab of code-server)', () => {
  // machine-overridable is right for a path on the engine's machine; VS Code's User tab in a remote
  // window lists only the local machine's scopes, so the description points at the Remote tab.
  const cache = propertiesOf(packageConfiguration())['reachAudit.cacheFolder'];
  assert.equal(cache.scope, 'machine-overridable');
  assert.match(String(cache.markdownDescription), /remote window .*\*\*Remote\*\* tab/);
});

test('chatTemplateKwargs is an object in settings.json (its old text form still read), and no setting says a --flag first', () => {
  const props = Object.assign({}, ...(configurationContribution() as { properties: Record<string, Record<string, unknown>> }[]).map((g) => g.properties)) as Record<string, Record<string, unknown>>;
  assert.deepEqual(props['reachAudit.chatTemplateKwargs'].type, ['object', 'string']);
  for (const [key, schema] of Object.entries(props)) assert.ok(!/^`--/.test(String(schema.markdownDescription ?? '')) && !/\. `--[a-z-]+[^`]*`:/.test(String(schema.markdownDescription ?? '')), `${key}: ${String(schema.markdownDescription)}`);
  const asObject = optionsFromSettings((k) => (k === 'chatTemplateKwargs' ? { enable_thinking: false } : undefined), (p) => p);
  assert.equal(asObject.options.chatTemplateKwargs, '{"enable_thinking":false}');
  assert.deepEqual(asObject.problems, []);
  const asText = optionsFromSettings((k) => (k === 'chatTemplateKwargs' ? '{"enable_thinking": false}' : undefined), (p) => p);
  assert.equal(asText.options.chatTemplateKwargs, '{"enable_thinking": false}');
  const empty = optionsFromSettings((k) => (k === 'chatTemplateKwargs' ? {} : undefined), (p) => p);
  assert.equal(empty.options.chatTemplateKwargs, undefined);
});
