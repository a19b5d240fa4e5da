/**
 * The shape and size of a mainnet block as snarkOS serves it, for the mainnet-shaped ledger node
 * (test/support/mainnet-node.ts).
 *
 * Taken from a real mainnet block in public sources: height 1,203,288 (network 0, round 2,414,062,
 * 2024-10-16), kept whole as the JSON input of the test `test_parse` of a public Aleo Name Service
 * block indexer (Rust, snarkVM MainnetV0). Its fields, in order, are what snarkVM serializes (ledger/narwhal/batch-header,
 * batch-certificate, subdag, transmission-id serialize.rs): `authority: { type: "quorum", subdag:
 * { subdag: { "<round>": [ { batch_header: { batch_id, author, round, timestamp, committee_id,
 * transmission_ids, previous_certificate_ids, signature }, signatures: [...] } ] } } }`. That
 * block is 116,237 bytes of compact JSON, 108,000 of them (92.9 %) the authority; a signature is
 * 216 characters, a field 80–82, an address 63, a transaction's transmission id 100.
 *
 * snarkOS serves it pretty-printed (`ErasedJson::pretty`: serde_json, 2-space indent), which
 * `JSON.stringify(v, null, 2)` reproduces. The size a stand-in block must reach is today's mainnet
 * average, ≈ 345 KB of which ≈ 97 % authority (snarkOS node/rest/src/routes.rs: "97% of mainnet's
 * block bytes in aggregate"; issue 33's measurement), which needs a larger committee than 2024's:
 * the authority grows with the square of the committee (each certificate names every certificate
 * of the round before and carries a signature of each other member).
 */
import { createHash } from 'node:crypto';

const BECH = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

function bech(prefix: string, seed: string, length: number): string {
  let s = '';
  let block = 0;
  while (s.length < length) {
    const h = createHash('sha256').update(`${seed}/${block++}`).digest();
    for (const b of h) {
      if (s.length === length) break;
      s += BECH[b % 32]!;
    }
  }
  return `${prefix}1${s}`;
}

const digits = (seed: string, n: number): string => {
  const h = createHash('sha256').update(seed).digest('hex');
  return (BigInt(`0x${h}`) % 10n ** BigInt(n)).toString().padStart(n, '1').replace(/^0/, '1');
};

/** A field element as snarkOS prints it (76 digits + `field`). */
export const field = (seed: string): string => `${digits(seed, 76)}field`;
/** An address (63 characters). */
export const address = (seed: string): string => bech('aleo', seed, 58);
/** A signature (216 characters, as on mainnet). */
export const signature = (seed: string): string => bech('sign', seed, 211);
/** A transaction's transmission id: `at1…` + `.` + its checksum (100 characters). */
export const transmissionId = (seed: string): string => `${bech('at', seed, 58)}.${digits(`${seed}/checksum`, 38)}`;

export interface AuthorityShape {
  /** Committee members: each certificate names this many previous certificates. */
  committee: number;
  /** Rounds in the subdag. */
  rounds: number;
  /** Certificates per round. */
  certificatesPerRound: number;
  /** Signatures per certificate (the other members of a quorum). */
  signaturesPerCertificate: number;
  /** Transmission ids per certificate. */
  transmissionsPerCertificate: number;
}

/** The authority of a block in snarkVM's JSON shape (values deterministic from `seed`). */
export function quorumAuthority(shape: AuthorityShape, firstRound: number, timestamp: number, seed: string): Record<string, unknown> {
  const members = Array.from({ length: shape.committee }, (_, i) => address(`${seed}/member${i}`));
  const committeeId = field(`${seed}/committee`);
  const subdag: Record<string, unknown[]> = {};
  let previous = Array.from({ length: shape.committee }, (_, i) => field(`${seed}/r${firstRound - 1}/c${i}`));
  for (let r = 0; r < shape.rounds; r++) {
    const round = firstRound + r;
    const certs = [];
    const ids: string[] = [];
    for (let c = 0; c < shape.certificatesPerRound; c++) {
      const id = field(`${seed}/r${round}/c${c}`);
      ids.push(id);
      certs.push({
        batch_header: {
          batch_id: id,
          author: members[c % members.length],
          round,
          timestamp,
          committee_id: committeeId,
          transmission_ids: Array.from({ length: shape.transmissionsPerCertificate }, (_, t) => transmissionId(`${seed}/r${round}/c${c}/t${t}`)),
          previous_certificate_ids: previous,
          signature: signature(`${seed}/r${round}/c${c}/own`),
        },
        signatures: Array.from({ length: shape.signaturesPerCertificate }, (_, s) => signature(`${seed}/r${round}/c${c}/s${s}`)),
      });
    }
    subdag[String(round)] = certs;
    previous = ids.length >= shape.committee ? ids.slice(0, shape.committee) : [...ids, ...previous.slice(ids.length)];
  }
  return { type: 'quorum', subdag: { subdag } };
}

/**
 * The authority shapes the stand-in cycles through (one per block, by height): a committee of
 * 21–22, 2 rounds of certificates per block, every certificate signed by all other members. With
 * snarkOS's pretty-printing this puts a block at ≈ 345 KB on average; with mainnet's ≈ 1.5 KB of
 * transactions a block, ≈ 99 % of it is the authority (test/e2e/mainnet-node.test.ts holds the
 * figures).
 */
export const MAINNET_AUTHORITY_SHAPES: readonly AuthorityShape[] = [
  { committee: 22, rounds: 2, certificatesPerRound: 22, signaturesPerCertificate: 21, transmissionsPerCertificate: 1 },
  { committee: 21, rounds: 2, certificatesPerRound: 21, signaturesPerCertificate: 20, transmissionsPerCertificate: 2 },
  { committee: 22, rounds: 2, certificatesPerRound: 22, signaturesPerCertificate: 21, transmissionsPerCertificate: 0 },
  { committee: 21, rounds: 2, certificatesPerRound: 21, signaturesPerCertificate: 20, transmissionsPerCertificate: 1 },
];

/** `JSON.stringify(v, null, 2)` (serde_json's pretty form) as a value nested `depth` levels deep. */
export function prettyAt(value: unknown, depth: number): string {
  const s = JSON.stringify(value, null, 2);
  return depth === 0 ? s : s.replace(/\n/g, `\n${'  '.repeat(depth)}`);
}

/** Everything of a block but its authority and transactions (spliced in at the two markers). */
export function blockFrame(height: number, timestamp: number, round: number): Record<string, unknown> {
  return {
    block_hash: bech('ab', `block${height}`, 58),
    previous_hash: bech('ab', `block${height - 1}`, 58),
    header: {
      previous_state_root: bech('sr', `root${height - 1}`, 58),
      transactions_root: field(`txroot${height}`),
      finalize_root: field(`finroot${height}`),
      ratifications_root: field(`ratroot${height}`),
      solutions_root: field(`solroot${height}`),
      subdag_root: field(`subdag${height}`),
      metadata: {
        network: 0,
        round,
        height,
        cumulative_weight: 18741903340503531150 + height,
        cumulative_proof_target: '0',
        coinbase_target: 35567900716529,
        proof_target: 8891975179133,
        last_coinbase_target: 35567900716529,
        last_coinbase_timestamp: timestamp,
        timestamp,
      },
    },
    authority: AUTHORITY_MARK,
    ratifications: [
      { type: 'block_reward', amount: 64993016 },
      { type: 'puzzle_reward', amount: 82421347 },
    ],
    solutions: {
      version: 1,
      solutions: {
        solutions: [
          {
            partial_solution: { solution_id: bech('solution', `sol${height}`, 18), epoch_hash: bech('ab', `epoch${height >> 8}`, 58), address: address(`prover${height % 7}`), counter: 12874387158213933576 },
            target: 1676976733973595601,
          },
        ],
      },
    },
    aborted_solution_ids: [],
    transactions: TRANSACTIONS_MARK,
    aborted_transaction_ids: [],
  };
}

export const AUTHORITY_MARK = '@@authority@@';
export const TRANSACTIONS_MARK = '@@transactions@@';
