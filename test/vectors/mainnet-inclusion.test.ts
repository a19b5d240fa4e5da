/**
 * Real mainnet data (../shared/vectors/aleo/mainnet): block 1,203,288 recomputes to its hash, the
 * three real transactions to their ids (every public input id from its value), and the one
 * transaction of the block is proven included. Then a node that lies, in each way it can, is named
 * by the link that breaks, and never believed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bigIntToLeBytes, decodeBech32m, encodeBech32m } from '../../src/aleo/bech32m.js';
import { checkBlock } from '../../src/aleo/block/check.js';
import { parseBlockJson, parseJsonLossless } from '../../src/aleo/block/losslessJson.js';
import { proveInclusion } from '../../src/aleo/inclusion/prove.js';

const DIR = path.resolve(process.cwd(), '../shared/vectors/aleo/mainnet');
const block = (): any => parseJsonLossless(readFileSync(path.join(DIR, 'block-1203288.json'), 'utf8'));
const tx = (name: string): any => JSON.parse(readFileSync(path.join(DIR, name), 'utf8'));
const TRANSACTIONS = ['tx-transfer-public.json', 'tx-token-swap-12-transitions.json'];

/** A block that holds `transaction` as its only confirmed transaction: a real tx outside its real block. */
function wrap(t: any): any {
  return { status: 'accepted', type: 'execute', index: 0, transaction: t };
}

describe('real mainnet block 1,203,288', () => {
  it('keeps cumulative_weight exact (above 2^53), on both readers', () => {
    expect(block().header.metadata.cumulative_weight).toBe('18741903340503531150');
    const text = readFileSync(path.join(DIR, 'block-1203288.json'), 'utf8');
    expect((parseBlockJson(text) as any).header).toEqual((parseJsonLossless(text) as any).header);
    // The key twice (a second object holding it): the fast reader cannot tell which, the whole text is read exactly.
    const twice = text.replace(/^\{/, '{"x":{"cumulative_weight":18741903340503531999},');
    expect((parseBlockJson(twice) as any).header.metadata.cumulative_weight).toBe('18741903340503531150');
    expect((parseBlockJson(twice) as any).x.cumulative_weight).toBe('18741903340503531999');
    // Strings are skipped by the exact reader, escaped quotes included; negative and fractional numbers kept apart.
    expect(parseJsonLossless('{"a":"x\\\\","b":12345678901234567890,"c":["12345678901234567890", -12345678901234567890, 1.5e300]}')).toEqual({ a: 'x\\', b: '12345678901234567890', c: ['12345678901234567890', '-12345678901234567890', 1.5e300] });
  });

  it('its transactions root, header root and block hash recompute from its JSON', () => {
    const r = checkBlock(block());
    expect(r.lines.map((l) => [l.name, l.matches])).toEqual([['transactions root', true], ['header root', true], ['block hash', true]]);
    expect(r.allMatch).toBe(true);
  });

  it('a header alone (with block_hash and previous_hash) checks the header root and hash', () => {
    const { header, block_hash, previous_hash } = block();
    const r = checkBlock({ header, block_hash, previous_hash });
    expect(r.lines.map((l) => l.name)).toEqual(['header root', 'block hash']);
    expect(r.allMatch).toBe(true);
  });

  it('any change of its header, previous hash or transactions shows', () => {
    const cases: [string, (b: any) => void][] = [
      ['timestamp', (b) => (b.header.metadata.timestamp += 1)],
      ['cumulative_weight', (b) => (b.header.metadata.cumulative_weight = '18741903340503531151')],
      ['finalize_root', (b) => (b.header.finalize_root = '1field')],
      ['previous_hash', (b) => (b.previous_hash = encodeBech32m('ab', bigIntToLeBytes(1n, 32)))],
      ['a transaction id', (b) => (b.transactions[0].transaction.id = tx('tx-transfer-public.json').id)],
    ];
    for (const [what, change] of cases) {
      const b = block();
      change(b);
      expect(checkBlock(b).allMatch, what).toBe(false);
    }
  });

  it('bech32m ids round-trip and a wrong checksum is refused', () => {
    const hash = block().block_hash as string;
    const bytes = decodeBech32m(hash, 'ab') as Uint8Array;
    expect(encodeBech32m('ab', bytes)).toBe(hash);
    const broken = hash.slice(0, -1) + (hash.endsWith('q') ? 'p' : 'q');
    expect(decodeBech32m(broken, 'ab')).toMatch(/checksum/);
  });
});

describe('inclusion proof', () => {
  const b = block();
  const confirmed = b.transactions[0];
  const transition = confirmed.transaction.execution.transitions[0].id as string;

  it('the block\'s real transaction is proven, every public input from its value', () => {
    const p = proveInclusion(b, confirmed, transition);
    expect(p).toMatchObject({ status: 'proven', height: 1203288n });
    if (p.status === 'proven') expect(encodeBech32m('ab', bigIntToLeBytes(p.blockHash, 32))).toBe(b.block_hash);
  });

  it('the other real transactions (2 and 12 transitions, address / u64 / u128 / field / bool inputs) recompute to their ids', () => {
    for (const name of TRANSACTIONS) {
      const t = tx(name);
      // Placed in the real block it is not there: every link up to the transaction id holds.
      const p = proveInclusion(b, wrap(t), t.execution.transitions[0].id);
      expect(p, name).toMatchObject({ status: 'failed', code: 'INCLUSION_NOT_IN_BLOCK', link: 'in block' });
    }
  });

  const lies: [string, (blk: any, c: any) => void, string][] = [
    ['an input value changed, its id kept', (_b, c) => (c.transaction.execution.transitions[0].inputs[1].value = '1550001u64'), 'INCLUSION_INPUT_ID_MISMATCH'],
    ['an address input changed, its id kept', (_b, c) => (c.transaction.execution.transitions[0].inputs[0].value = 'aleo1mtfsa8hnhcr99v0n3m2ukayc60annk0kcaunf2ckhccav6lx55qsrhw0rl'), 'INCLUSION_INPUT_ID_MISMATCH'],
    ['an input id changed with its value', (_b, c) => (c.transaction.execution.transitions[0].inputs[1].id = '1field'), 'INCLUSION_INPUT_ID_MISMATCH'],
    ['an output id changed', (_b, c) => (c.transaction.execution.transitions[0].outputs[0].id = '1field'), 'INCLUSION_TRANSITION_ID_MISMATCH'],
    ['a tcm changed (every input id hashes it)', (_b, c) => (c.transaction.execution.transitions[0].tcm = '1field'), 'INCLUSION_INPUT_ID_MISMATCH'],
    ['a transition id changed', (_b, c) => (c.transaction.execution.transitions[0].id = tx('tx-transfer-public.json').execution.transitions[0].id), 'INCLUSION_TRANSITION_ID_MISMATCH'],
    ['the fee transition changed', (_b, c) => (c.transaction.fee.transition.outputs[0].id = '1field'), 'INCLUSION_TRANSITION_ID_MISMATCH'],
    ['the transaction id changed', (blk, c) => (c.transaction.id = blk.transactions[0].transaction.id = tx('tx-transfer-public.json').id), 'INCLUSION_TRANSACTION_ID_MISMATCH'],
    ['a fabricated transaction added to the block\'s list', (blk) => blk.transactions.push(wrap(tx('tx-transfer-public.json'))), 'INCLUSION_TRANSACTIONS_ROOT_MISMATCH'],
    ['the transactions root changed to cover a fabricated list', (blk) => (blk.header.transactions_root = '1field'), 'INCLUSION_TRANSACTIONS_ROOT_MISMATCH'],
    ['a wrong block hash', (blk) => (blk.block_hash = blk.previous_hash), 'INCLUSION_BLOCK_HASH_MISMATCH'],
    ['a changed header field', (blk) => (blk.header.metadata.height += 1), 'INCLUSION_BLOCK_HASH_MISMATCH'],
    ['a missing header', (blk) => delete blk.header, 'INCLUSION_HEADER_MISSING'],
    ['a rejected transaction', (_b, c) => (c.status = 'rejected'), 'INCLUSION_UNSUPPORTED'],
  ];
  for (const [what, lie, code] of lies) {
    it(`a node that serves ${what} is named ${code}`, () => {
      const blk = block();
      const c = blk.transactions[0];
      lie(blk, c);
      const p = proveInclusion(blk, c, transition);
      expect(p.status).toBe('failed');
      if (p.status === 'failed') expect(p.code, p.detail).toBe(code);
    });
  }

  it('a transaction moved to another block (its ids all intact) is not in that block', () => {
    const t = tx('tx-token-swap-12-transitions.json');
    const blk = block();
    const p = proveInclusion(blk, wrap(t), t.execution.transitions[4].id);
    expect(p).toMatchObject({ status: 'failed', code: 'INCLUSION_NOT_IN_BLOCK' });
  });

  it('a transition the transaction does not hold is named', () => {
    const other = tx('tx-transfer-public.json').execution.transitions[0].id;
    expect(proveInclusion(b, confirmed, other)).toMatchObject({ status: 'failed', code: 'INCLUSION_TRANSITION_ID_MISMATCH' });
  });
});
