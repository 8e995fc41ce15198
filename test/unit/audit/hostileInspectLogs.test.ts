/**
 * Inspect .eval logs made hostile at test time (test/support/hostileArchives.ts): a zip bomb in an
 * entry the log does not use and in one it does, an entry inflating past what it declares, the
 * chunked layout at thousands of samples, a nesting of thousands of levels, and one sample and epoch
 * filed twice. Each is refused with the file, the entry and the bound, or read as the log says.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readInspectLog } from '../../../src/audit/imports';
import { InputError } from '../../../src/common/errors';
import { deflatedZeros, inspectHeader, inspectSample, jsonEntry, nestedJson, withDeep, zerosSize, zipArchive, type RawZipEntry } from '../../support/hostileArchives';

const MIB = 1 << 20;

function refuses(read: () => unknown, pattern: RegExp): void {
  assert.throws(read, (e: unknown) => {
    assert.ok(e instanceof InputError, `an InputError, got ${String(e)}`);
    assert.match(e.message, pattern);
    return true;
  });
}

/** A flat .eval log of two samples, with `extra` entries after them. */
function evalLog(extra: RawZipEntry[] = [], samples = [inspectSample(1, 1, '3'), inspectSample(2, 1, '4')]): Uint8Array {
  return zipArchive([jsonEntry('header.json', inspectHeader()), ...samples.map((s) => jsonEntry(`samples/${String(s.id)}_epoch_${String(s.epoch)}.json`, s)), ...extra]);
}

test('an entry the log does not use is never inflated: a 1 GiB junk.bin (and one that is not even deflate) costs nothing', () => {
  const started = Date.now();
  const bomb: RawZipEntry = { name: 'junk.bin', data: deflatedZeros(1024), deflated: true, size: zerosSize(1024) };
  const garbage: RawZipEntry = { name: 'summaries.json', data: new Uint8Array([0xff, 0xff, 0xff, 0xff]), deflated: true, size: 10 };
  const log = readInspectLog('bomb.eval', evalLog([bomb, garbage]));
  assert.deepEqual(
    log.questions.map((q) => q.outputs),
    [['3'], ['4']],
  );
  assert.ok(Date.now() - started < 5000, `read in ${Date.now() - started} ms`);
});

test('a sample entry declaring more than an entry may hold is refused before a byte is inflated, naming the entry and the bound', () => {
  const before = process.memoryUsage().rss;
  const bomb: RawZipEntry = { name: 'samples/3_epoch_1.json', data: deflatedZeros(600), deflated: true, size: zerosSize(600) };
  refuses(() => readInspectLog('bomb.eval', evalLog([bomb])), /bomb\.eval: samples\/3_epoch_1\.json inflates to more than 535822336 bytes, the most one entry may \(fixed bounds .*inspect eval --limit/);
  assert.ok(process.memoryUsage().rss - before < 200 * MIB, 'nothing near the declared size was allocated');
});

test('entries whose declared sizes together pass the total bound are refused at the entry that passes it', () => {
  const entries = [3, 4, 5].map((id): RawZipEntry => ({ name: `samples/${id}_epoch_1.json`, data: deflatedZeros(400), deflated: true, size: zerosSize(400) }));
  refuses(() => readInspectLog('many.eval', evalLog(entries)), /many\.eval: the log's entries inflate to more than 1073741824 bytes together \(at samples\/5_epoch_1\.json\)/);
});

test('an entry that inflates past the size it declares stops there, named as forged', () => {
  const before = process.memoryUsage().rss;
  const liar: RawZipEntry = { name: 'samples/3_epoch_1.json', data: deflatedZeros(1024), deflated: true, size: 100 };
  refuses(() => readInspectLog('liar.eval', evalLog([liar])), /liar\.eval: samples\/3_epoch_1\.json inflates to more than the 100 bytes the archive declares for it/);
  assert.ok(process.memoryUsage().rss - before < 200 * MIB);
});

test('an archive listing one entry twice is refused: which copy is the log cannot be told', () => {
  const one = jsonEntry('samples/1_epoch_1.json', inspectSample(1, 1, '3'));
  refuses(() => readInspectLog('twice.eval', zipArchive([jsonEntry('header.json', inspectHeader()), one, { ...one, data: jsonEntry('x', inspectSample(1, 1, '9')).data }])), /twice\.eval: the archive lists samples\/1_epoch_1\.json twice/);
});

test('the chunked layout is read in time linear in its entries: 5,000 samples with attachments', () => {
  const entries: RawZipEntry[] = [jsonEntry('header.json', inspectHeader())];
  for (let id = 1; id <= 5000; id++) {
    const folder = `samples/${id}_epoch_1/`;
    entries.push(jsonEntry(`${folder}sample.json`, { ...inspectSample(id, 1, 'attachment://0'), input: 'attachment://1' }));
    entries.push(jsonEntry(`${folder}attachments/0.json`, [`${id + 2}`, `What is 2 + ${id}?`]));
  }
  const started = Date.now();
  const log = readInspectLog('chunked.eval', zipArchive(entries));
  const ms = Date.now() - started;
  assert.equal(log.questions.length, 5000);
  assert.deepEqual(log.questions[4999].outputs, ['5002']);
  assert.equal(log.questions[4999].doc.question, 'What is 2 + 5000?');
  assert.ok(ms < 8000, `5,000 chunked samples read in ${ms} ms`);
});

test('one sample and epoch in both layouts is refused, naming both entries, not read as two repeats', () => {
  const log = zipArchive([jsonEntry('header.json', inspectHeader()), jsonEntry('samples/1_epoch_1.json', inspectSample(1, 1, '3')), jsonEntry('samples/1_epoch_1/sample.json', inspectSample(1, 1, '9'))]);
  refuses(() => readInspectLog('dup.eval', log), /dup\.eval:samples\/1_epoch_1\/sample\.json: sample 1 epoch 1 is also at dup\.eval:samples\/1_epoch_1\.json; each sample and epoch is expected once/);
});

test("a sample filed under another epoch than its own is refused: 2_epoch_2.json carrying epoch 1", () => {
  const log = zipArchive([jsonEntry('header.json', inspectHeader()), jsonEntry('samples/2_epoch_1.json', inspectSample(2, 1, '4')), jsonEntry('samples/2_epoch_2.json', inspectSample(2, 1, '5'))]);
  refuses(() => readInspectLog('epochs.eval', log), /epochs\.eval:samples\/2_epoch_2\.json: field "epoch" is 1, but the entry is named for epoch 2/);
});

test('a nesting of 6,000 levels is refused with the entry, the field and the bound (model_generate_config, target, a .json log)', () => {
  const deepConfig = zipArchive([jsonEntry('header.json', withDeep(inspectHeader({ temperature: 0, extra: '__DEEP__' }), nestedJson(6000))), jsonEntry('samples/1_epoch_1.json', inspectSample(1, 1, '3'))]);
  refuses(() => readInspectLog('deep.eval', deepConfig), /deep\.eval: header\.json: field eval\.model_generate_config\.extra\.a… \(\d+ levels more\) nests more than 1000 objects and arrays deep \(a fixed bound/);
  const deepTarget = zipArchive([jsonEntry('header.json', inspectHeader()), jsonEntry('samples/1_epoch_1.json', withDeep(inspectSample(1, 1, '3', '__DEEP__'), nestedJson(6000)))]);
  refuses(() => readInspectLog('target.eval', deepTarget), /target\.eval: samples\/1_epoch_1\.json: field target\.a\.a\.a… .* nests more than 1000/);
  const json = new TextEncoder().encode(withDeep({ ...inspectHeader(), samples: [inspectSample(1, 1, '3', '__DEEP__')] }, nestedJson(6000)));
  refuses(() => readInspectLog('deep.json', json), /deep\.json: field samples\[0\]\.target\.a… .* nests more than 1000/);
});
