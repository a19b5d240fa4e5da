/** The 32-byte meta header: ten u16 LE section lengths; bytes 20–31 reserved (ignored on decode). */
import { META_HEADER_BYTES, readU16LE, writeU16LE } from './blocks.js';

export interface MetaHeader {
  attestationData: number;
  timestamp: number;
  statusCode: number;
  method: number;
  responseFormat: number;
  url: number;
  selector: number;
  encodingOptions: number;
  headers: number;
  optionalFields: number;
}

const ORDER: ReadonlyArray<keyof MetaHeader> = [
  'attestationData', 'timestamp', 'statusCode', 'method', 'responseFormat',
  'url', 'selector', 'encodingOptions', 'headers', 'optionalFields',
];

export function readMetaHeader(b: Uint8Array): MetaHeader {
  const m = {} as MetaHeader;
  ORDER.forEach((k, i) => {
    m[k] = readU16LE(b, 2 * i);
  });
  return m;
}

export function writeMetaHeader(m: MetaHeader): Uint8Array {
  const out = new Uint8Array(META_HEADER_BYTES);
  ORDER.forEach((k, i) => writeU16LE(out, 2 * i, m[k]));
  return out;
}
