/**
 * The Nitro attestation document (the COSE payload): a CBOR map with text keys. Every field is
 * type- and range-checked here; nothing is coerced.
 */
import { VerifierError } from '../../errors.js';
import { cborTypeName, decodeCbor, type CborNode } from '../cbor.js';
import type { TypeBCode } from './errors.js';

export interface NitroDocument {
  readonly moduleId: string;
  /** Milliseconds since the Unix epoch. */
  readonly timestamp: number;
  readonly digest: string;
  /** PCR index → measurement (32, 48, 64 or 96 bytes). */
  readonly pcrs: ReadonlyMap<number, Uint8Array>;
  /** DER of the leaf certificate. */
  readonly certificate: Uint8Array;
  /** DER certificates, root first, down to the leaf's issuer. */
  readonly cabundle: readonly Uint8Array[];
  readonly publicKey: Uint8Array | null;
  readonly userData: Uint8Array | null;
  readonly nonce: Uint8Array | null;
}

export const MAX_OPTIONAL_FIELD_BYTES = 1024;
export const MAX_CABUNDLE = 16;
export const PCR_LENGTHS: readonly number[] = [32, 48, 64, 96];
/** Latest instant a JavaScript Date can hold. */
const MAX_TIMESTAMP = 8.64e15;

const REQUIRED = ['module_id', 'digest', 'timestamp', 'pcrs', 'certificate', 'cabundle'] as const;
const OPTIONAL = ['public_key', 'user_data', 'nonce'] as const;
type Key = (typeof REQUIRED)[number] | (typeof OPTIONAL)[number];
const KNOWN = new Set<string>([...REQUIRED, ...OPTIONAL]);

function fail(code: TypeBCode, msg: string): never {
  throw new VerifierError<TypeBCode>(code, `typeB: attestation document: ${msg}`);
}

function bytes(n: CborNode, field: string): Uint8Array {
  if (n.kind !== 'bytes') fail('TYPEB_DOC_BAD_FIELD', `${field} is a ${cborTypeName(n)}, expected a byte string`);
  return n.value;
}

function optionalBytes(n: CborNode | undefined, field: string): Uint8Array | null {
  if (n === undefined || (n.kind === 'simple' && n.value === null)) return null;
  const b = bytes(n, `${field}`);
  if (b.length > MAX_OPTIONAL_FIELD_BYTES) fail('TYPEB_DOC_BAD_FIELD', `${field} is ${b.length} bytes, more than ${MAX_OPTIONAL_FIELD_BYTES}`);
  return b;
}

export function parseNitroDocument(payload: Uint8Array): NitroDocument {
  let root: CborNode;
  try {
    root = decodeCbor(payload, { maxDepth: 3, maxItems: 512 });
  } catch (e) {
    if (e instanceof VerifierError) throw new VerifierError(e.code, `typeB: attestation document: ${e.message}`, { cause: e });
    throw e;
  }
  if (root.kind !== 'map') fail('TYPEB_DOC_NOT_A_MAP', `payload is a ${cborTypeName(root)}, expected a map`);

  const f = new Map<Key, CborNode>();
  for (const [k, v] of root.entries) {
    if (k.kind !== 'text') fail('TYPEB_DOC_UNKNOWN_FIELD', `map key is a ${cborTypeName(k)}, expected a text string`);
    if (!KNOWN.has(k.value)) fail('TYPEB_DOC_UNKNOWN_FIELD', `unknown field ${JSON.stringify(k.value)}`);
    f.set(k.value as Key, v); // the decoder already refused duplicate keys
  }
  for (const k of REQUIRED) if (!f.has(k)) fail('TYPEB_DOC_MISSING_FIELD', `missing field ${k}`);
  const get = (k: (typeof REQUIRED)[number]): CborNode => f.get(k)!;

  const moduleIdN = get('module_id');
  if (moduleIdN.kind !== 'text') fail('TYPEB_DOC_BAD_FIELD', `module_id is a ${cborTypeName(moduleIdN)}, expected a text string`);
  if (moduleIdN.value.length === 0) fail('TYPEB_DOC_BAD_FIELD', 'module_id is empty');

  const digestN = get('digest');
  if (digestN.kind !== 'text') fail('TYPEB_DOC_BAD_FIELD', `digest is a ${cborTypeName(digestN)}, expected a text string`);
  if (digestN.value !== 'SHA384') fail('TYPEB_DOC_DIGEST', `digest is ${JSON.stringify(digestN.value)}, expected "SHA384"`);

  const tsN = get('timestamp');
  if (tsN.kind !== 'uint') fail('TYPEB_DOC_BAD_FIELD', `timestamp is a ${cborTypeName(tsN)}, expected an unsigned integer`);
  if (typeof tsN.value !== 'number' || tsN.value < 1 || tsN.value > MAX_TIMESTAMP) {
    fail('TYPEB_DOC_BAD_FIELD', `timestamp ${tsN.value} is outside 1..${MAX_TIMESTAMP} ms`);
  }

  const pcrsN = get('pcrs');
  if (pcrsN.kind !== 'map') fail('TYPEB_DOC_BAD_FIELD', `pcrs is a ${cborTypeName(pcrsN)}, expected a map`);
  if (pcrsN.entries.length < 1 || pcrsN.entries.length > 32) fail('TYPEB_DOC_BAD_FIELD', `pcrs has ${pcrsN.entries.length} entries, expected 1 to 32`);
  const pcrs = new Map<number, Uint8Array>();
  for (const [k, v] of pcrsN.entries) {
    if (k.kind !== 'uint' || typeof k.value !== 'number' || k.value > 31) {
      fail('TYPEB_DOC_BAD_FIELD', `pcrs key ${'value' in k ? String(k.value) : cborTypeName(k)} is not an index 0..31`);
    }
    const m = bytes(v, `PCR${k.value}`);
    if (!PCR_LENGTHS.includes(m.length)) fail('TYPEB_DOC_BAD_FIELD', `PCR${k.value} is ${m.length} bytes, expected 32, 48, 64 or 96`);
    pcrs.set(k.value, m);
  }
  if (!pcrs.has(0)) fail('TYPEB_DOC_BAD_FIELD', 'pcrs lacks PCR0');

  const certificate = bytes(get('certificate'), 'certificate');
  if (certificate.length === 0) fail('TYPEB_DOC_BAD_FIELD', 'certificate is empty');

  // A null or empty cabundle (seen in self-signed, non-AWS samples) parses as []; the chain
  // check then fails because the leaf alone is not the pinned root.
  const cabN = get('cabundle');
  const cabNull = cabN.kind === 'simple' && cabN.value === null;
  if (cabN.kind !== 'array' && !cabNull) fail('TYPEB_DOC_BAD_FIELD', `cabundle is a ${cborTypeName(cabN)}, expected an array`);
  const cabItems = cabN.kind === 'array' ? cabN.items : [];
  if (cabItems.length > MAX_CABUNDLE) {
    fail('TYPEB_DOC_BAD_FIELD', `cabundle has ${cabItems.length} certificates, more than ${MAX_CABUNDLE}`);
  }
  const cabundle = cabItems.map((c, i) => {
    const b = bytes(c, `cabundle[${i}]`);
    if (b.length === 0) fail('TYPEB_DOC_BAD_FIELD', `cabundle[${i}] is empty`);
    return b;
  });

  return {
    moduleId: moduleIdN.value,
    timestamp: tsN.value,
    digest: digestN.value,
    pcrs,
    certificate,
    cabundle,
    publicKey: optionalBytes(f.get('public_key'), 'public_key'),
    userData: optionalBytes(f.get('user_data'), 'user_data'),
    nonce: optionalBytes(f.get('nonce'), 'nonce'),
  };
}

/** True when PCR0 is all zeros (an enclave started in debug mode). */
export function isDebugDocument(doc: NitroDocument): boolean {
  const pcr0 = doc.pcrs.get(0);
  return pcr0 !== undefined && pcr0.every((b) => b === 0);
}
