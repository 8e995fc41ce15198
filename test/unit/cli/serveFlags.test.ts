/**
 * Command-line messages around `serve` and flag values (issue 29): serve's options without --http
 * name --http; listening beyond loopback without a token is refused before the model loads unless
 * --allow-no-token; a value starting with '-' (`--shard -1/2`) is named with its flag instead of the
 * parser's "argument is ambiguous".
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serveCommand } from '../../../src/cli/serve';
import { parseFlags } from '../../../src/cli/flags';

describe('serve and flag-value messages', () => {
  it('serve --model without --http names --http', async () => {
    await assert.rejects(serveCommand.run(['--model', '/nowhere']), {
      message: "--model is an option of `serve --http HOST:PORT`; without --http, serve is the VS Code extension's engine process and takes no options",
    });
    await assert.rejects(serveCommand.run(['--token-env=T']), /^InputError: --token-env is an option of `serve --http HOST:PORT`/);
  });

  it('serve --http 0.0.0.0 or [::] without a token is refused before the model loads', async () => {
    for (const listen of ['0.0.0.0:0', '[::]:0']) {
      await assert.rejects(
        serveCommand.run(['--http', listen, '--model', '/no/such/model']),
        (e: Error) => e.message.startsWith(`--http ${listen}: listening beyond this machine without a token`) && e.message.includes('--allow-no-token'),
      );
    }
  });

  it('a flag value starting with - is named with its flag', () => {
    assert.throws(() => parseFlags(['--shard', '-1/2'], { shard: { type: 'string' } }), {
      message: "--shard: the value '-1/2' starts with '-' and reads as an option; if it is the value you mean, write --shard=-1/2",
    });
  });
});
