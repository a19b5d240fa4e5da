/**
 * A test PKI that mints typeB (AWS Nitro) attestation documents the way the Nitro Secure Module
 * does: test root (P-384) → regional → zonal → instance CAs → a fresh per-document leaf (P-384,
 * about 3 h), and an ES384 COSE_Sign1 over a CBOR payload in NSM field order. Every part can be
 * tampered with for negative tests.
 */
import { createHash, sign, type KeyObject } from 'node:crypto';
import { encodeCbor, indefinite, type CborInput } from './cbor-encode.js';
import {
  basicConstraintsExt,
  generateEcKey,
  keyUsageExt,
  mintCa,
  mintCertificate,
  name,
  toPem,
  type Curve,
  type MintedCa,
} from './x509-mint.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface TypeBPkiOptions {
  /** Reference time (ms) around which validity windows are built; default Date.now(). */
  readonly now?: number;
  /** Number of intermediate CAs below the root (default 3: regional, zonal, instance). */
  readonly intermediates?: number;
  /** Validity windows of the intermediates, top-down; default [now - 30 d, now + 30 d]. */
  readonly intermediateWindows?: ReadonlyArray<readonly [number, number]>;
  /** pathLen of each intermediate, top-down (default none). */
  readonly intermediatePathLens?: ReadonlyArray<number | undefined>;
}

export interface MintDocumentOptions {
  readonly moduleId?: string;
  readonly digest?: string;
  /** Document timestamp (ms); default the PKI's `now`. */
  readonly timestamp?: number;
  /** PCR values by index (array index = PCR index); default 16 × 48 bytes, PCR0–4 non-zero. */
  readonly pcrs?: ReadonlyArray<Uint8Array> | ReadonlyMap<number, Uint8Array>;
  readonly userData?: Uint8Array | null;
  readonly nonce?: Uint8Array | null;
  readonly publicKey?: Uint8Array | null;
  /** COSE alg in the protected header (default -35, ES384). */
  readonly alg?: number;
  /** Encode the payload map with indefinite length (bf … ff). */
  readonly indefiniteMap?: boolean;
  /** Leaf validity; default [timestamp - 24 s, timestamp - 24 s + 3 h]. */
  readonly leafNotBefore?: number;
  readonly leafNotAfter?: number;
  readonly leafCurve?: Curve;
  /** Hash of the instance CA's signature on the leaf (default sha384 for P-384 CAs). */
  readonly leafHash?: 'sha256' | 'sha384';
  /** Rewrites the cabundle (root first) before encoding: reorder, drop, replace. */
  readonly cabundle?: (bundle: Uint8Array[]) => Uint8Array[];
  /** Edits the payload map before encoding (add, remove, retype fields). */
  readonly fields?: (doc: Map<CborInput, CborInput>) => void;
  /** Signs the COSE_Sign1 with this private key instead of the leaf key. */
  readonly signWith?: KeyObject;
  /** Hash for the COSE signature (default sha384). */
  readonly coseHash?: 'sha256' | 'sha384';
}

export interface TypeBPki {
  readonly now: number;
  readonly root: MintedCa;
  readonly rootDer: Uint8Array;
  readonly rootPem: string;
  /** Intermediate CAs, top-down (the one right below the root first). */
  readonly intermediates: readonly MintedCa[];
  mintDocument(opts?: MintDocumentOptions): Uint8Array;
}

export function defaultPcrs(): Uint8Array[] {
  return Array.from({ length: 16 }, (_, i) =>
    i < 5 ? new Uint8Array(createHash('sha384').update(`pcr${i}`).digest()) : new Uint8Array(48),
  );
}

export function createTypeBPki(opts: TypeBPkiOptions = {}): TypeBPki {
  const now = opts.now ?? Date.now();
  const root = mintCa({
    subject: name({ C: 'US', O: 'Test', OU: 'Nitro', CN: 'test.nitro-enclaves' }),
    notBefore: now - 365 * DAY,
    notAfter: now + 30 * 365 * DAY,
  });
  const intermediates: MintedCa[] = [];
  let issuer = root;
  const count = opts.intermediates ?? 3;
  for (let i = 0; i < count; i++) {
    const [nb, na] = opts.intermediateWindows?.[i] ?? [now - 30 * DAY, now + 30 * DAY];
    const ca = mintCa({
      subject: name({ C: 'US', O: 'Test', OU: 'Nitro', CN: `intermediate-${i + 1}.test` }),
      issuer,
      notBefore: nb,
      notAfter: na,
      pathLen: opts.intermediatePathLens?.[i],
    });
    intermediates.push(ca);
    issuer = ca;
  }
  const instance = issuer;

  function mintDocument(o: MintDocumentOptions = {}): Uint8Array {
    const timestamp = o.timestamp ?? now;
    const leafKey = generateEcKey(o.leafCurve ?? 'P-384');
    const leafNotBefore = o.leafNotBefore ?? timestamp - 24_000;
    const leaf = mintCertificate({
      subject: name({ C: 'US', O: 'Test', OU: 'Nitro', CN: `i-test-enc${timestamp.toString(16)}` }),
      issuer: instance.name,
      subjectKey: leafKey.publicKey,
      issuerKey: instance.key.privateKey,
      notBefore: leafNotBefore,
      notAfter: o.leafNotAfter ?? leafNotBefore + 3 * HOUR,
      hash: o.leafHash,
      extensions: [basicConstraintsExt(false), keyUsageExt([0])],
    });
    const bundleDefault = [root.der, ...intermediates.map((c) => c.der)];
    const cabundle = o.cabundle ? o.cabundle(bundleDefault) : bundleDefault;
    const pcrsIn = o.pcrs ?? defaultPcrs();
    const pcrs = new Map<CborInput, CborInput>(pcrsIn instanceof Map ? [...pcrsIn] : (pcrsIn as Uint8Array[]).map((v, i) => [i, v]));
    const doc = new Map<CborInput, CborInput>([
      ['module_id', o.moduleId ?? 'i-0123456789abcdef0-enc0123456789abcdef'],
      ['digest', o.digest ?? 'SHA384'],
      ['timestamp', timestamp],
      ['pcrs', pcrs],
      ['certificate', leaf],
      ['cabundle', cabundle],
      ['public_key', o.publicKey === undefined ? null : o.publicKey],
      ['user_data', o.userData === undefined ? new Uint8Array(16).fill(0x5f) : o.userData],
      ['nonce', o.nonce === undefined ? null : o.nonce],
    ]);
    o.fields?.(doc);
    const payload = encodeCbor(o.indefiniteMap ? indefinite(doc) : doc);
    const protectedBytes = encodeCbor(new Map([[1, o.alg ?? -35]]));
    const toBeSigned = encodeCbor(['Signature1', protectedBytes, new Uint8Array(0), payload]);
    const signature = sign(o.coseHash ?? 'sha384', toBeSigned, { key: o.signWith ?? leafKey.privateKey, dsaEncoding: 'ieee-p1363' });
    return encodeCbor([protectedBytes, new Map(), payload, new Uint8Array(signature)]);
  }

  return { now, root, rootDer: root.der, rootPem: toPem(root.der), intermediates, mintDocument };
}
