/** Writing the HTML report file, with a message that names the file when it cannot be written. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError } from './command';

export function writeHtmlReport(file: string, html: string): string {
  const target = path.resolve(file);
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, html);
  } catch (err) {
    throw new UsageError(`--html ${file}: cannot write it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return target;
}
