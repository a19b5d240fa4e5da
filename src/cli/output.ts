/**
 * Output sinks with exact byte offsets (for checkpoints), atomic checkpoint files, and reading
 * back a JSONL output.
 */
import { closeSync, existsSync, fdatasyncSync, ftruncateSync, openSync, readFileSync, renameSync, writeFileSync, writeSync, fsyncSync } from 'node:fs';
import { cliError } from './errors.js';
import { fileProblem } from './inputFile.js';
import type { OutputRecord } from '../ledger/records/updateRecord.js';

export interface Sink {
  /** Bytes written so far (for a file: its length). */
  readonly offset: number;
  write(text: string): Promise<void>;
  /** Makes the written bytes durable (files). */
  sync(): void;
  close(): Promise<void>;
}

export class FileSink implements Sink {
  private fd: number;
  offset: number;

  /** Opens `path` for writing at `startOffset`, truncating whatever follows it. */
  constructor(path: string, startOffset = 0) {
    this.fd = openSync(path, existsSync(path) ? 'r+' : 'w+');
    ftruncateSync(this.fd, startOffset);
    this.offset = startOffset;
  }

  async write(text: string): Promise<void> {
    const buf = Buffer.from(text, 'utf8');
    let done = 0;
    while (done < buf.length) done += writeSync(this.fd, buf, done, buf.length - done, this.offset + done);
    this.offset += buf.length;
  }

  sync(): void {
    fdatasyncSync(this.fd);
  }

  async close(): Promise<void> {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}

export class StdoutSink implements Sink {
  offset = 0;
  async write(text: string): Promise<void> {
    this.offset += Buffer.byteLength(text);
    if (!process.stdout.write(text)) await new Promise<void>((r) => process.stdout.once('drain', () => r()));
  }
  sync(): void {}
  async close(): Promise<void> {}
}

/** Writes `value` as JSON to `file` atomically (temporary file, fsync, rename). */
export function writeJsonAtomic(file: string, value: unknown): void {
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, `${JSON.stringify(value, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/** Parses a JSONL output file (as written by reverify/merge); empty lines are skipped. */
export function readRecords(file: string, maxBytes?: number): OutputRecord[] {
  let text: string;
  try {
    const buf = readFileSync(file);
    text = (maxBytes === undefined ? buf : buf.subarray(0, maxBytes)).toString('utf8');
  } catch (e) {
    throw cliError('CLI_BAD_INPUT', fileProblem(file, e));
  }
  const out: OutputRecord[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.trim() === '') continue;
    let r: unknown;
    try {
      r = JSON.parse(l);
    } catch {
      throw cliError('CLI_BAD_INPUT', `${file}:${i + 1}: not a JSON line`);
    }
    if (typeof r !== 'object' || r === null || typeof (r as OutputRecord).kind !== 'string') throw cliError('CLI_BAD_INPUT', `${file}:${i + 1}: not a reverify record`);
    out.push(r as OutputRecord);
  }
  return out;
}

export { writeFileSync };
