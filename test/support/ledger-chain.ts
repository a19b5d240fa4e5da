/**
 * Block and transaction fixtures for the ledger-node simulator (test/support/ledger-node.ts):
 * a chain of blocks in snarkOS's JSON shape (confirmed transactions with execute transitions whose
 * public inputs carry Leo value text), served through `addRoute` at
 *   GET /blocks?start=S&end=E         (end exclusive, at most 50 blocks, like snarkOS)
 *   GET /block/height/latest
 *   GET /block/{h}/transactions
 *   GET /block/{h}/header
 *   GET /transaction/{id}             (?metadata=true: { transaction, block_hash, block_height })
 *   GET /find/blockHash/{id}, GET /height/{hash}
 */
import { createHash } from 'node:crypto';
import { jsonAnswer, prettyLeo, type LedgerNode } from './ledger-node.js';
import { updateKindOf } from '../../src/ledger/programs.js';

export interface TransitionSpec {
  program: string;
  function: string;
  /** Public input values (Leo text), in order. */
  inputs: string[];
}

export interface ChainTransition {
  id: string;
  program: string;
  function: string;
  inputs: { type: 'public'; id: string; value: string }[];
  outputs: unknown[];
  tpk: string;
  tcm: string;
  scm: string;
}

export interface ConfirmedTx {
  status: 'accepted' | 'rejected';
  type: 'execute';
  index: number;
  transaction: Record<string, unknown>;
  finalize: unknown[];
  rejected?: Record<string, unknown>;
}

const BECH = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

/** A deterministic bech32-looking identifier (`at1…`, `au1…`, `ab1…`). */
export function fakeId(prefix: string, seed: string): string {
  const h = createHash('sha256').update(seed).digest();
  let s = '';
  for (let i = 0; i < 58; i++) s += BECH[h[i % 32]! % 32]!;
  return `${prefix}1${s}`;
}

const fieldId = (seed: string) => `${BigInt(`0x${createHash('sha256').update(seed).digest('hex').slice(0, 60)}`)}field`;

const SIG = 'sign1qyqsqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq';
const ADDR = 'aleo1urxgwaz5yqf5u7ajlc52lxcq7a3u62tpk4m5ryl5e8xplz0mxy9sd6thfe';
const POSITION = '{ block_index: 8u8, shift_a: 0u8, shift_b: 0u8, mask_a: 0u128, mask_b: 0u128 }';

/** Transition builders for the oracle program and for things a scan must skip. */
export const t = {
  setDataSgx: (program: string, userData: string, report: string): TransitionSpec => ({ program, function: 'set_data_sgx', inputs: [userData, report, SIG, ADDR] }),
  setDataNitro: (program: string, userData: string, report: string): TransitionSpec => ({
    program,
    function: 'set_data_nitro',
    inputs: [userData, report, SIG, ADDR, POSITION, POSITION, POSITION, POSITION],
  }),
  /** Any update transition of the program registry, with the inputs its report kind takes. */
  update: (program: string, fn: string, userData: string, report: string): TransitionSpec => {
    const kind = updateKindOf(program, fn);
    if (kind === undefined) throw new Error(`${program}/${fn} is not an update transition of the program registry`);
    return kind === 'typeA' ? { program, function: fn, inputs: [userData, report, SIG, ADDR] } : { program, function: fn, inputs: [userData, report, SIG, ADDR, POSITION, POSITION, POSITION, POSITION] };
  },
  setUniqueId: (program: string, leo: string): TransitionSpec => ({ program, function: 'set_unique_id', inputs: [leo] }),
  setPcrValues: (program: string, leo: string): TransitionSpec => ({ program, function: 'set_pcr_values', inputs: [leo] }),
  setKey: (program: string): TransitionSpec => ({ program, function: 'set_key', inputs: [ADDR, 'true'] }),
  transfer: (): TransitionSpec => ({ program: 'credits.aleo', function: 'transfer_public', inputs: [ADDR, '1000000u64'] }),
  other: (program: string, fn: string, inputs: string[]): TransitionSpec => ({ program, function: fn, inputs }),
};

export class LedgerChain {
  private readonly blocks = new Map<number, ConfirmedTx[]>();
  /** Ids of aborted transactions, by height (a block's aborted_transaction_ids). */
  private readonly aborted = new Map<number, string[]>();
  private readonly txs = new Map<string, { tx: Record<string, unknown>; height: number }>();
  private seq = 0;
  /** Block timestamps set by the test (Unix seconds); else 1725000000 + 3 s per height. */
  private readonly times = new Map<number, number>();
  /** Every oracle transition id added, with its height and function (expected scan results). */
  readonly added: { height: number; transactionId: string; transitionId: string; program: string; function: string; accepted: boolean }[] = [];

  constructor(
    readonly first: number,
    /** Latest height (inclusive). */
    readonly latest: number,
    /** Prefixes the seed of every id, so that chains built apart (one per block) share no id. */
    private readonly idPrefix = '',
  ) {}

  private transition(spec: TransitionSpec, seed: string): ChainTransition {
    return {
      id: fakeId('au', `${seed}/transition`),
      program: spec.program,
      function: spec.function,
      inputs: spec.inputs.map((v, i) => ({ type: 'public', id: fieldId(`${seed}/in${i}`), value: v.trim().startsWith('{') ? prettyLeo(v) : v })),
      outputs: [{ type: 'future', id: fieldId(`${seed}/out`), value: `{\n  program_id: ${spec.program},\n  function_name: ${spec.function},\n  arguments: []\n}` }],
      tpk: `${BigInt(`0x${createHash('sha256').update(`${seed}/tpk`).digest('hex').slice(0, 60)}`)}group`,
      tcm: fieldId(`${seed}/tcm`),
      scm: fieldId(`${seed}/scm`),
    };
  }

  private fee(seed: string): Record<string, unknown> {
    return {
      transition: this.transition({ program: 'credits.aleo', function: 'fee_public', inputs: ['1000u64', '0u64', fieldId(`${seed}/fee`)] }, `${seed}/fee`),
      global_state_root: 'sr1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq',
      proof: 'proof1qqqq',
    };
  }

  /** Adds an execute transaction with these transitions at `height`; returns its id and transition ids. */
  add(height: number, transitions: TransitionSpec[], opts: { rejected?: boolean; aborted?: boolean } = {}): { transactionId: string; transitionIds: string[] } {
    if (height < this.first || height > this.latest) throw new Error(`height ${height} outside the chain`);
    const seed = `${this.idPrefix}tx${this.seq++}`;
    const ts = transitions.map((s, i) => this.transition(s, `${seed}/${i}`));
    const id = fakeId('at', seed);
    const execution = { transitions: ts, global_state_root: 'sr1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq', proof: 'proof1qqqq' };
    if (opts.aborted) {
      // snarkVM: an aborted transaction is not confirmed; the block keeps only its id in
      // aborted_transaction_ids (snarkOS serves neither its body on /blocks nor on /blocks/transactions).
      this.aborted.set(height, [...(this.aborted.get(height) ?? []), id]);
      ts.forEach((x) => this.added.push({ height, transactionId: id, transitionId: x.id, program: x.program, function: x.function, accepted: false }));
      return { transactionId: id, transitionIds: ts.map((x) => x.id) };
    }
    const list = this.blocks.get(height) ?? [];
    let confirmed: ConfirmedTx;
    if (opts.rejected) {
      // snarkVM: a rejected execution is replaced by a fee-only transaction; the execution is kept aside.
      const feeTx = { type: 'fee', id: fakeId('at', `${seed}/fee-tx`), fee: this.fee(seed) };
      confirmed = { status: 'rejected', type: 'execute', index: list.length, transaction: feeTx, rejected: { type: 'execution', execution }, finalize: [] };
      this.txs.set(feeTx.id, { tx: feeTx, height });
    } else {
      const tx = { type: 'execute', id, execution, fee: this.fee(seed) };
      confirmed = { status: 'accepted', type: 'execute', index: list.length, transaction: tx, finalize: [] };
      this.txs.set(id, { tx, height });
    }
    list.push(confirmed);
    this.blocks.set(height, list);
    ts.forEach((x) => this.added.push({ height, transactionId: id, transitionId: x.id, program: x.program, function: x.function, accepted: !opts.rejected }));
    return { transactionId: id, transitionIds: ts.map((x) => x.id) };
  }

  /** Sets block `height`'s header.metadata.timestamp (Unix seconds). */
  setTimestamp(height: number, seconds: number): void {
    this.times.set(height, seconds);
  }

  /** The confirmed transactions at `height` (what a block's `transactions` holds). */
  transactionsAt(height: number): ConfirmedTx[] {
    return this.blocks.get(height) ?? [];
  }

  block(height: number): Record<string, unknown> {
    return {
      block_hash: fakeId('ab', `block${height}`),
      previous_hash: fakeId('ab', `block${height - 1}`),
      header: {
        previous_state_root: 'sr1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq',
        transactions_root: fieldId(`txroot${height}`),
        finalize_root: fieldId(`finroot${height}`),
        ratifications_root: fieldId(`ratroot${height}`),
        solutions_root: '0field',
        subdag_root: fieldId(`subdag${height}`),
        metadata: {
          network: 0,
          round: height * 2,
          height,
          cumulative_weight: String(height * 1000),
          cumulative_proof_target: '0',
          coinbase_target: 1000,
          proof_target: 100,
          last_coinbase_target: 1000,
          last_coinbase_timestamp: 1725000000,
          timestamp: this.times.get(height) ?? 1725000000 + height * 3,
        },
      },
      authority: { type: 'quorum', subdag: {} },
      ratifications: [],
      solutions: { version: 1 },
      aborted_solution_ids: [],
      transactions: this.blocks.get(height) ?? [],
      aborted_transaction_ids: this.aborted.get(height) ?? [],
    };
  }

  /**
   * Serves the chain from the simulator, bodies pretty-printed as snarkOS prints them
   * (ErasedJson::pretty). `transactionsRoute` also serves `/blocks/transactions` as newer snarkOS
   * does (node/rest/src/routes.rs get_block_transactions_range: ≤ 160 blocks, one array of
   * confirmed transactions per block; start > end a 400, over 160 a 400, a missing height a 404;
   * on the v1 and bare prefixes, v1_error_middleware answers each error as a 500 with its text).
   * Without it, that path is unknown (404), as on older nodes.
   */
  install(node: LedgerNode, opts: { transactionsRoute?: boolean } = {}): void {
    const text = (status: number, body: string) => ({ status, body, headers: { 'content-type': 'text/plain' } });
    const pretty = (value: unknown) => ({ status: 200, body: JSON.stringify(value, null, 2), headers: { 'content-type': 'application/json' } });
    const v2 = new URL(node.url).pathname.startsWith('/v2/');
    // A RestError: its status on /v2; on /v1 and the bare prefix a 500 with the message.
    const restError = (status: number, message: string) => (v2 ? text(status, JSON.stringify({ message, chain: [] })) : text(500, message));
    if (opts.transactionsRoute) {
      node.addRoute('GET', /^\/blocks\/transactions$/, ({ query }) => {
        const s = Number(query.get('start'));
        const e = Number(query.get('end'));
        if (!/^\d+$/.test(query.get('start') ?? '') || !/^\d+$/.test(query.get('end') ?? '')) return text(400, 'Failed to deserialize query string');
        if (s > e) return restError(400, 'Invalid block range');
        if (e - s > 160) return restError(400, `Cannot request more than 160 blocks' transactions per call (requested ${e - s})`);
        for (let h = s; h < e; h++) if (h < this.first || h > this.latest) return restError(404, `Failed to get transactions for blocks '${s}..${e}' — Missing block hash for block ${h}`);
        const out = [];
        for (let h = s; h < e; h++) out.push(this.blocks.get(h) ?? []);
        return pretty(out);
      });
    }
    node.addRoute('GET', /^\/blocks$/, ({ query }) => {
      const s = Number(query.get('start'));
      const e = Number(query.get('end'));
      if (!Number.isInteger(s) || !Number.isInteger(e) || s < 0 || e <= s) return text(500, 'Invalid URL - start and end must be integers with start < end');
      if (e - s > 50) return text(500, `Cannot request more than 50 blocks per call (requested ${e - s})`);
      if (s < this.first || e - 1 > this.latest) return text(500, `Missing blocks in range ${s}..${e}`);
      const out = [];
      for (let h = s; h < e; h++) out.push(this.block(h));
      return pretty(out);
    });
    node.addRoute('GET', /^\/block\/height\/latest$/, () => jsonAnswer(this.latest));
    node.addRoute('GET', /^\/block\/(\d+)\/transactions$/, ({ params: [h = ''] }) => jsonAnswer(this.blocks.get(Number(h)) ?? []));
    // A block's header (the completeness check places a time in the chain by it): every height up
    // to the latest, those before `first` too (empty blocks), as a chain from genesis has them.
    node.addRoute('GET', /^\/block\/(\d+)\/header$/, ({ params: [h = ''] }) => (Number(h) <= this.latest ? jsonAnswer(this.block(Number(h)).header) : text(500, `Missing block ${h}`)));
    // Older nodes: the block of a transaction by hash, the height of a block hash.
    node.addRoute('GET', /^\/find\/blockHash\/([^/]+)$/, ({ params: [id = ''] }) => {
      const hit = this.txs.get(id);
      return hit ? jsonAnswer(fakeId('ab', `block${hit.height}`)) : text(500, `Missing transaction '${id}'`);
    });
    node.addRoute('GET', /^\/height\/([^/]+)$/, ({ params: [hash = ''] }) => {
      for (let h = this.first; h <= this.latest; h++) if (fakeId('ab', `block${h}`) === hash) return jsonAnswer(h);
      return text(500, `Missing block hash '${hash}'`);
    });
    node.addRoute('GET', /^\/transaction\/([^/]+)$/, ({ params: [id = ''], query }) => {
      const hit = this.txs.get(id);
      if (!hit) return text(500, `Missing transaction '${id}'`);
      return jsonAnswer(query.get('metadata') === 'true' ? { transaction: hit.tx, block_hash: fakeId('ab', `block${hit.height}`), block_height: hit.height } : hit.tx);
    });
  }
}
