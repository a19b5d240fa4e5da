/**
 * The fuzz targets (engine.ts): one per strict parser of what the verifier reads from the
 * outside. Each asserts what holds for every input: the parser returns, or throws its own
 * declared error (a VerifierError with a code of the closed set, src/errorCodes.ts); and, where a
 * reference exists beside it, the two agree. Seeds are the real vectors in test/fuzz/corpus/.
 */
import { X509Certificate } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isVerifierError } from '../../src/errors.js';
import { isErrorCode } from '../../src/errorCodes.js';
import { parseQuote } from '../../src/attestation/typeA/quote.js';
import { parseTypeB } from '../../src/attestation/typeB/verify.js';
import { parseCertificate } from '../../src/attestation/x509/certificate.js';
import { parseCrl } from '../../src/attestation/x509/crl.js';
import { parseUserData } from '../../src/encoding/eras/index.js';
import { parseLeoU128Struct } from '../../src/aleo/leoValue.js';
import { parseTcbInfo } from '../../src/attestation/typeA/tcbInfo.js';
import { parseQeIdentity } from '../../src/attestation/typeA/qeIdentity.js';
import { readBlocksJson, readBlocksStructural, readBlocksStructuralJs } from '../../src/ledger/node/blocks/blocksBody.js';
import { libCertFields, libCrlFields, libNitroFields, ourCertFields, ourCrlFields, ourNitroFields } from '../support/reference-parsers.js';
import type { FuzzTarget } from './engine.js';
import { http1Answer } from './http1Answer.js';
import { configJson } from './configJson.js';

const CORPUS = resolve(process.cwd(), 'test/fuzz/corpus');
const seedsOf = (name: string) => () => readdirSync(join(CORPUS, name)).sort().map((f) => new Uint8Array(readFileSync(join(CORPUS, name, f))));

/** `fn`, where only the parser's declared errors may be thrown. */
function declared<T>(what: string, fn: () => T): T | undefined {
  try {
    return fn();
  } catch (e) {
    if (isVerifierError(e) && isErrorCode(e.code)) return undefined;
    throw new Error(`${what} threw an undeclared ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
}

const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

/** A value as text with object keys sorted, bytes as hex and bigints marked: equal values, equal texts. */
function canon(v: unknown): string {
  if (v instanceof Uint8Array) return `0x${Buffer.from(v).toString('hex')}`;
  if (typeof v === 'bigint') return `${v}n`;
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  if (v instanceof Date) return `date:${v.getTime()}`;
  if (typeof v === 'object' && v !== null) {
    return `{${Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined).sort().map((k) => `${k}:${canon((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'undefined';
}

/** What ours read equals what the reference library reads (it must read it at all). */
function agree(ours: string, lib: string, mine: unknown, theirs: () => unknown): void {
  let ref: unknown;
  try {
    ref = theirs();
  } catch (e) {
    throw new Error(`${ours} accepted what ${lib} refuses (${(e as Error).message})`);
  }
  const a = canon(mine);
  const b = canon(ref);
  if (a !== b) throw new Error(`${ours} and ${lib} read different fields: ${a.slice(0, 300)} vs ${b.slice(0, 300)}`);
}

/** A raw control character inside a JSON string: the structural reader does not look for it in the members it skips, by choice (blocksBody.ts). */
const hasRawControlInString = (b: Uint8Array): boolean => {
  let inString = false;
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      else if (c < 0x20) return true;
    } else if (c === 0x22) inString = true;
  }
  return false;
};

/** The three /blocks readers on one body: the same blocks, or all refuse it. */
function sameBlocks(b: Uint8Array): void {
  const body = Buffer.from(b);
  const outcome = (name: string, read: typeof readBlocksJson) => {
    const r = declared(name, () => read(body, 10));
    return r === undefined ? 'refused' : JSON.stringify(r);
  };
  const ref = outcome('readBlocksJson', readBlocksJson);
  const js = outcome('readBlocksStructuralJs', readBlocksStructuralJs);
  const wasm = outcome('readBlocksStructural', readBlocksStructural);
  if (js !== wasm) throw new Error(`the JavaScript walk and the WebAssembly skipper disagree: ${js.slice(0, 200)} vs ${wasm.slice(0, 200)}`);
  if (ref !== js && !(ref === 'refused' && hasRawControlInString(b))) throw new Error(`JSON.parse and the structural reader disagree: ${ref.slice(0, 200)} vs ${js.slice(0, 200)}`);
}

export const TARGETS: readonly FuzzTarget[] = [
  { name: 'typeA-quote', seeds: seedsOf('typeA-quote'), run: (b) => void declared('parseQuote', () => parseQuote(b)) },
  {
    name: 'typeB-cose',
    seeds: seedsOf('typeB-cose'),
    run: (b) => {
      const ours = declared('parseTypeB (COSE_Sign1, CBOR, the document)', () => parseTypeB(b));
      // What ours accepts, cbor-x reads to the same fields (test/support/reference-parsers.ts).
      if (ours) agree('parseTypeB', 'cbor-x', ourNitroFields(ours), () => libNitroFields(b));
    },
  },
  {
    name: 'x509-der',
    seeds: seedsOf('x509-der'),
    run: (b) => {
      const ours = declared('parseCertificate', () => parseCertificate(b));
      if (!ours) return;
      // What ours accepts, node:crypto (OpenSSL) must accept too, with the same serial.
      let ref: X509Certificate;
      try {
        ref = new X509Certificate(Buffer.from(b));
      } catch (e) {
        throw new Error(`parseCertificate accepted a certificate that node:crypto refuses (${(e as Error).message})`);
      }
      if (ref.serialNumber.toLowerCase().replace(/^0+/, '') !== ours.serialHex.replace(/^0+/, '')) {
        throw new Error(`serials differ: parseCertificate ${ours.serialHex}, node:crypto ${ref.serialNumber}`);
      }
      // And @peculiar/asn1-x509 reads the same fields.
      agree('parseCertificate', '@peculiar/asn1-x509', ourCertFields(ours), () => libCertFields(b));
    },
  },
  {
    name: 'crl-der',
    seeds: seedsOf('crl-der'),
    run: (b) => {
      const ours = declared('parseCrl', () => parseCrl(b));
      if (ours) agree('parseCrl', '@peculiar/asn1-x509', ourCrlFields(ours), () => libCrlFields(b));
    },
  },
  { name: 'leo-struct', seeds: seedsOf('leo-struct'), run: (b) => void declared('parseUserData', () => parseUserData(text(b))) },
  { name: 'blocks-reader', seeds: seedsOf('blocks-reader'), run: sameBlocks },
  {
    name: 'tcb-json',
    seeds: seedsOf('tcb-json'),
    run: (b) => {
      declared('parseTcbInfo', () => parseTcbInfo(text(b)));
      declared('parseQeIdentity', () => parseQeIdentity(text(b)));
    },
  },
  { name: 'leo-value', seeds: seedsOf('leo-value'), run: (b) => void declared('parseLeoU128Struct', () => parseLeoU128Struct(text(b), ['k0', 'k1'])) },
  { name: 'http1-answer', seeds: seedsOf('http1-answer'), run: http1Answer },
  { name: 'config-json', seeds: seedsOf('config-json'), run: configJson },
];
