import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatPcrStruct, formatProductId, formatUniqueId } from '../../src/aleo/ids.js';
import { pcrsFromLeo, uniqueIdFromLeo } from '../../src/aleo/leoValue.js';
import { isVerifierError } from '../../src/errors.js';

const VECTORS = path.resolve(process.cwd(), '../shared/vectors');
const readJson = (rel: string): any => JSON.parse(readFileSync(path.join(VECTORS, rel), 'utf8'));
const b64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'base64'));
const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'hex'));

/** The ledger node's pretty print of a flat struct: one key per line, 2-space indent. */
function prettyFlat(singleLine: string): string {
  return singleLine.replace(/^\{ /, '{\n  ').replace(/, /g, ',\n  ').replace(/ \}$/, '\n}');
}

describe('ledger id / PCR struct texts (production targets)', () => {
  const t = readJson('production-targets.json');

  it('unique id target: ledgerEncoded exact, both hex and base64 sources, and back', () => {
    const id = hex(t.uniqueIdTargetHex);
    expect(b64(t.uniqueIdTarget)).toEqual(id);
    expect(formatUniqueId(id)).toBe(t.ledgerEncoded.uniqueId);
    expect(uniqueIdFromLeo(t.ledgerEncoded.uniqueId)).toEqual(id);
    expect(uniqueIdFromLeo(prettyFlat(t.ledgerEncoded.uniqueId))).toEqual(id);
  });

  it('PCR targets: ledgerEncoded exact and back', () => {
    const pcrs = (t.pcrValuesTargetHex as string[]).map(hex);
    expect((t.pcrValuesTarget as string[]).map(b64)).toEqual(pcrs);
    expect(formatPcrStruct(pcrs)).toBe(t.ledgerEncoded.pcrs);
    expect(pcrsFromLeo(t.ledgerEncoded.pcrs)).toEqual(pcrs);
    expect(pcrsFromLeo(prettyFlat(t.ledgerEncoded.pcrs))).toEqual(pcrs);
  });
});

describe('ledger id / PCR struct texts (README /decodeReport examples)', () => {
  const ex = readJson('aleo/e2e/readme-decodeReport-examples.json');

  it('typeA: quoted unique/signer id and product id', () => {
    const r = ex.sgx.response.decodedReport;
    expect(formatUniqueId(b64(r.uniqueId), { quoted: true })).toBe(r.aleoUniqueId);
    expect(formatUniqueId(b64(r.signerId), { quoted: true })).toBe(r.aleoSignerId);
    expect(formatProductId(b64(r.productId))).toBe(r.aleoProductId);
    // the unquoted form is what the ledger stores; it parses back to the same bytes
    const unquoted = (r.aleoUniqueId as string).replace(/"/g, '');
    expect(formatUniqueId(b64(r.uniqueId))).toBe(unquoted);
    expect(uniqueIdFromLeo(unquoted)).toEqual(b64(r.uniqueId));
  });

  it('typeB: PCR struct of PCRs 0-2', () => {
    const r = ex.nitro.response.decodedReport;
    const pcrs = [b64(r.pcrs['0']), b64(r.pcrs['1']), b64(r.pcrs['2'])];
    expect(formatPcrStruct(pcrs)).toBe(r.aleoPcrs);
    expect(pcrsFromLeo(r.aleoPcrs)).toEqual(pcrs);
  });

  it('rejects wrong byte lengths', () => {
    const codeOf = (f: () => unknown): string | undefined => {
      try {
        f();
      } catch (e) {
        return isVerifierError(e) ? e.code : String(e);
      }
      return undefined;
    };
    expect(codeOf(() => formatUniqueId(new Uint8Array(31)))).toBe('STRUCT_INVALID_ARGUMENT');
    expect(codeOf(() => formatProductId(new Uint8Array(32)))).toBe('STRUCT_INVALID_ARGUMENT');
    expect(codeOf(() => formatPcrStruct([new Uint8Array(48), new Uint8Array(48)]))).toBe('STRUCT_INVALID_ARGUMENT');
    expect(codeOf(() => formatPcrStruct([new Uint8Array(48), new Uint8Array(47), new Uint8Array(48)]))).toBe('STRUCT_INVALID_ARGUMENT');
  });
});
