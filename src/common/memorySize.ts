/**
 * Sizes of memory as people write them: `8G`, `512MiB`, `1.5GB`, `1048576`. K/M/G/T and KiB…TiB are
 * powers of 1024 (as docker --memory and the JVM's -Xmx read them); KB…TB are powers of 1000; a
 * bare number is bytes.
 */
import { InputError } from './errors';

const UNITS: Record<string, number> = {
  '': 1, b: 1,
  k: 2 ** 10, kib: 2 ** 10, kb: 1e3,
  m: 2 ** 20, mib: 2 ** 20, mb: 1e6,
  g: 2 ** 30, gib: 2 ** 30, gb: 1e9,
  t: 2 ** 40, tib: 2 ** 40, tb: 1e12,
};

/** Whole bytes of `text`; `what` names the flag or field in the error. */
export function parseMemorySize(text: string, what: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? UNITS[m[2].toLowerCase()] : undefined;
  const bytes = m && unit !== undefined ? Math.floor(Number(m[1]) * unit) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new InputError(`${what} ${JSON.stringify(text)}: expected a size above 0 such as 8G, 512MiB or 2GB (K/M/G/T and KiB…TiB: powers of 1024; KB…TB: powers of 1000; a bare number: bytes)`);
  }
  return bytes;
}

/** "1.5 GiB", "512 MiB", "900 B": three significant figures in the largest binary unit that fits. */
export function memorySizeText(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let u = 0;
  let v = bytes;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? String(v) : Number(v.toPrecision(3)).toString()} ${units[u]}`;
}
