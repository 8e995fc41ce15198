/** Writing report and table files, with messages that name the file (or folder) and the cause. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createFolder, describeFsError } from '../engine';
import { UsageError } from './command';

/** Writes `text` to the file a flag names, making its folder; returns the absolute path. */
export function writeOutputFile(flag: string, file: string, text: string): string {
  const target = path.resolve(file);
  try {
    createFolder(path.dirname(target), 'the folder');
  } catch (err) {
    throw new UsageError(`${flag} ${file}: ${(err as Error).message}`);
  }
  try {
    fs.writeFileSync(target, text);
  } catch (err) {
    throw new UsageError(`${flag} ${file}: cannot write it: ${describeFsError(err)}`);
  }
  return target;
}

export function writeHtmlReport(file: string, html: string): string {
  return writeOutputFile('--html', file, html);
}
