/**
 * Token embedding lookup straight from the cached F32 table on disk. A lookup touches only the
 * rows of the tokens fed (B·S rows a step), so the [vocab, hidden] table never has to sit in
 * process memory a second time next to the head's copy (for Qwen2.5-0.5B that is 544 MB); the OS
 * page cache keeps the hot rows.
 */
import * as fs from 'node:fs';

export class EmbeddingTable {
  private fd: number | null;
  private readonly rowBytes: number;

  constructor(file: string, private readonly hiddenSize: number, readonly vocabSize: number) {
    this.fd = fs.openSync(file, 'r');
    this.rowBytes = hiddenSize * 4;
    const expected = this.rowBytes * vocabSize;
    const size = fs.fstatSync(this.fd).size;
    if (size < expected) throw new Error(`embedding table ${file} has ${size} bytes, expected ${expected}`);
  }

  /** Embeddings of `ids`, row after row ([ids.length, hidden]). */
  lookup(ids: readonly number[]): Float32Array {
    if (this.fd === null) throw new Error('embedding table is closed');
    const out = new Float32Array(ids.length * this.hiddenSize);
    const bytes = new Uint8Array(out.buffer);
    ids.forEach((id, i) => {
      const n = fs.readSync(this.fd as number, bytes, i * this.rowBytes, this.rowBytes, id * this.rowBytes);
      if (n !== this.rowBytes) throw new Error(`short read of embedding row ${id}`);
    });
    return out;
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}
