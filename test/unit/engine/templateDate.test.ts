/**
 * The day a chat template sees: strftime_now answers with the given day (00:00 UTC, Python's C
 * locale) whatever the clock, zone or locale; a template that calls it says so; without a day it
 * is today's, UTC (the test clock's when set).
 */
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readModelConfig } from '../../../src/engine/checkpoint/config';
import { loadModelTokenizer } from '../../../src/engine/text/tokenizer';
import { parseTemplateDate, strftimeAt, TEST_CLOCK_ENV, todayForTemplates } from '../../../src/engine/text/templateDate';

const DEMO = path.resolve(__dirname, '../../../../media/demo/tuned');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-template-date-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** The demo model with a chat template that opens like Llama 3.2's. */
function datedModel(): string {
  const dir = path.join(root, 'dated');
  if (fs.existsSync(dir)) return dir;
  fs.cpSync(DEMO, dir, { recursive: true });
  const file = path.join(dir, 'tokenizer_config.json');
  const config = JSON.parse(fs.readFileSync(file, 'utf8')) as { chat_template: string };
  config.chat_template = '{%- if strftime_now is defined %}{%- set date_string = strftime_now("%d %b %Y") %}{%- else %}{%- set date_string = "26 Jul 2024" %}{%- endif %}Today Date: {{ date_string }}\n' + config.chat_template;
  fs.writeFileSync(file, JSON.stringify(config));
  return dir;
}

test("strftime in Python's C locale, in UTC", () => {
  const d = parseTemplateDate('2026-03-01', 'x');
  assert.equal(strftimeAt(d, '%d %b %Y'), '01 Mar 2026');
  assert.equal(strftimeAt(d, '%A %e %B %y, day %j, %H:%M:%S %p %%'), 'Sunday  1 March 26, day 060, 00:00:00 AM %');
  assert.equal(strftimeAt(d, '%Q stays'), '%Q stays');
});

test('a day that is not a calendar day is refused by name', () => {
  assert.throws(() => parseTemplateDate('2026-02-30', '--template-date'), /--template-date: expected a calendar day as YYYY-MM-DD .*got '2026-02-30'/);
  assert.throws(() => parseTemplateDate('1 Mar 2026', '--template-date'), /expected a calendar day/);
});

test("today is the test clock's UTC day when it is set", () => {
  const saved = process.env[TEST_CLOCK_ENV];
  try {
    process.env[TEST_CLOCK_ENV] = '2026-12-31T23:30:00-05:00';
    assert.equal(todayForTemplates(), '2027-01-01');
  } finally {
    if (saved === undefined) delete process.env[TEST_CLOCK_ENV];
    else process.env[TEST_CLOCK_ENV] = saved;
  }
});

test('a template that calls strftime_now renders the given day, and says it reads a date', () => {
  const dir = datedModel();
  const tokenizer = loadModelTokenizer(dir, readModelConfig(dir));
  assert.equal(tokenizer.templateReadsDate, true);
  const messages = [{ role: 'user' as const, content: 'What is 2 + 3?' }];
  assert.match(tokenizer.renderChat(messages, {}, '2026-03-01'), /^Today Date: 01 Mar 2026\n/);
  assert.match(tokenizer.renderChat(messages, {}, '2026-11-23'), /^Today Date: 23 Nov 2026\n/);
  assert.deepEqual(tokenizer.encodeChat(messages, {}, '2026-03-01'), tokenizer.encodeChat(messages, {}, '2026-03-01'));
  assert.notDeepEqual(tokenizer.encodeChat(messages, {}, '2026-03-01'), tokenizer.encodeChat(messages, {}, '2026-11-23'));
  const today = new Date().toISOString().slice(0, 10);
  assert.ok(tokenizer.renderChat(messages).startsWith(`Today Date: ${strftimeAt(parseTemplateDate(today, 'x'), '%d %b %Y')}\n`));
});

test('the demo template reads no date', () => {
  const tokenizer = loadModelTokenizer(DEMO, readModelConfig(DEMO));
  assert.equal(tokenizer.templateReadsDate, false);
});
