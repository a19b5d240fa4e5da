/**
 * The mapping cross-check's parts: what an update or an overwrite writes into the data mapping
 * (keys against independently computed hashes), and the verdict on a key for each way its value
 * can come about (src/ledger/records/mappingVerdict.ts).
 */
import { describe, expect, it } from 'vitest';
import { judgeMapping, type MappingWriteRef } from '../../../../src/ledger/records/mappingVerdict.js';
import { canonicalU128Literal, parseAttestedData, unattestedWrite, updateWrites } from '../../../../src/ledger/records/mappingWrites.js';
import { PROGRAMS } from '../../../../src/ledger/programs.js';
import { formatChunkedStruct } from '../../../../src/aleo/struct.js';
import { hashReportDataU128, hashTimestampedRequest } from '../../../../src/hash/index.js';
import { u128ToLE } from '../../../../src/aleo/u128.js';

const w = (o: Partial<MappingWriteRef> & Pick<MappingWriteRef, 'role' | 'outcome' | 'blockHeight'>): MappingWriteRef => ({
  transactionId: `at1tx${o.blockHeight}`,
  transitionId: `au1t${o.blockHeight}`,
  program: 'veru_oracle_v2.aleo',
  function: o.role === 'unattested' ? 'update_historic_data' : 'set_data_sgx',
  ...o,
});

describe('judgeMapping', () => {
  const a = w({ role: 'latest', outcome: 'valid', blockHeight: 10, data: '1', attestationTimestamp: '100' });
  const b = w({ role: 'latest', outcome: 'valid', blockHeight: 20, data: '2', attestationTimestamp: '200' });
  const older = w({ role: 'latest', outcome: 'valid', blockHeight: 30, data: '3', attestationTimestamp: '150' });

  it('a request-hash key must hold the valid update with the greatest attestation timestamp, whatever the block order', () => {
    expect(judgeMapping({ data: '2', attestationTimestamp: '200' }, [a, b, older])).toMatchObject({ status: 'consistent', expected: b });
    const r = judgeMapping({ data: '3', attestationTimestamp: '150' }, [a, b, older]);
    expect(r).toMatchObject({ status: 'inconsistent', expected: b, setBy: older });
  });

  it('a timestamped key must hold the last valid write', () => {
    const h1 = w({ role: 'historic', outcome: 'valid', blockHeight: 10, data: '1', attestationTimestamp: '100' });
    const h2 = w({ role: 'historic', outcome: 'valid', blockHeight: 11, data: '5', attestationTimestamp: '100' });
    expect(judgeMapping({ data: '5', attestationTimestamp: '100' }, [h1, h2]).status).toBe('consistent');
    expect(judgeMapping({ data: '1', attestationTimestamp: '100' }, [h1, h2]).status).toBe('inconsistent');
  });

  it('an overwrite after a valid update is inconsistent, naming both; a value no write stored names the overwrite as likely', () => {
    const over = w({ role: 'unattested', outcome: 'unattested', blockHeight: 40, data: '9', attestationTimestamp: '200' });
    expect(judgeMapping({ data: '9', attestationTimestamp: '200' }, [a, b, over])).toMatchObject({ status: 'inconsistent', expected: b, setBy: over, lastWrite: over });
    const r = judgeMapping({ data: '7', attestationTimestamp: '199' }, [a, b, over]);
    expect(r).toMatchObject({ status: 'inconsistent', expected: b, likelyOverwrite: over });
    expect(r.setBy).toBeUndefined();
  });

  it('absent while a valid update stored it: inconsistent; an invalid update\'s data: inconsistent; an unverifiable one\'s: not checked', () => {
    expect(judgeMapping(null, [a]).status).toBe('inconsistent');
    const bad = w({ role: 'latest', outcome: 'invalid', blockHeight: 50, data: '8', attestationTimestamp: '300' });
    expect(judgeMapping({ data: '8', attestationTimestamp: '300' }, [a, bad])).toMatchObject({ status: 'inconsistent', setBy: bad, expected: a });
    const pending = w({ role: 'latest', outcome: 'unverifiable', blockHeight: 50, data: '8', attestationTimestamp: '300' });
    expect(judgeMapping({ data: '8', attestationTimestamp: '300' }, [a, pending])).toMatchObject({ status: 'not_checked', setBy: pending });
  });

  it('never consistent without a valid update; a newer value no write stored may predate the scan: not checked', () => {
    const pending = w({ role: 'latest', outcome: 'unverifiable', blockHeight: 50, data: '8', attestationTimestamp: '300' });
    expect(judgeMapping({ data: '8', attestationTimestamp: '300' }, [pending]).status).toBe('not_checked');
    expect(judgeMapping({ data: '4', attestationTimestamp: '999' }, [a, b]).status).toBe('not_checked');
    expect(judgeMapping({ data: '4', attestationTimestamp: '150' }, [a, b]).status).toBe('inconsistent');
    expect(judgeMapping({ data: '4', attestationTimestamp: '1' }, [w({ role: 'unattested', outcome: 'unattested', blockHeight: 1, data: '5', attestationTimestamp: '1' })]).status).toBe('not_checked');
  });
});

describe('mapping writes', () => {
  /** A chunk with f1 = 1 (non-empty), f2 = data, f3 = timestamp, and some request bytes. */
  const chunk = (data: bigint, ts: bigint, tag: number): Uint8Array => {
    const c = new Uint8Array(512);
    c[16] = 1;
    u128ToLE(data, c, 32);
    u128ToLE(ts, c, 48);
    c.fill(tag, 64, 128);
    return c;
  };
  const zeroed = (b: Uint8Array) => {
    const m = b.slice();
    m.fill(0, 32, 64);
    return m;
  };

  it('8-chunk programs: one entry keyed by the whole userData with c0.f2, c0.f3 zeroed, and its timestamped hash', () => {
    const ud = new Uint8Array(8 * 512);
    ud.set(chunk(123n, 1700000000n, 7), 0);
    ud.fill(3, 1024, 1100);
    const writes = updateWrites(PROGRAMS.program('veru_oracle_v2.aleo')!.attestedData, 'typeB', 'set_data_nitro', formatChunkedStruct(ud, 8, 'pretty'));
    const rh = hashReportDataU128(zeroed(ud));
    expect(writes).toEqual([
      { program: 'veru_oracle_v2.aleo', mapping: 'nitro_attested_data', key: `${rh}u128`, role: 'latest', data: '123', attestationTimestamp: '1700000000' },
      { program: 'veru_oracle_v2.aleo', mapping: 'nitro_attested_data', key: `${hashTimestampedRequest(rh, 1700000000n)}u128`, role: 'historic', data: '123', attestationTimestamp: '1700000000' },
    ]);
  });

  it('v5: per chunk into the data program, as many chunks as the function stores, empty ones (f1 = 0) skipped; v3: marked uncertain', () => {
    const ud = new Uint8Array(10 * 512);
    for (let c = 0; c < 6; c++) ud.set(chunk(BigInt(c + 1), 1700000000n + BigInt(c), c + 1), c * 512);
    ud[2 * 512 + 16] = 0; // c2 empty
    const text = formatChunkedStruct(ud, 10, 'compact');
    const v5 = PROGRAMS.program('veru_oracle_interface_v5.aleo')!.attestedData;
    const five = updateWrites(v5, 'typeA', 'set_five_data_sgx', text).filter((x) => x.role === 'latest');
    expect(five.map((x) => x.data)).toEqual(['1', '2', '4', '5']);
    expect(five[0]).toMatchObject({ program: 'veru_oracle_data_v5.aleo', mapping: 'sgx_attested_data', key: `${hashReportDataU128(zeroed(ud.slice(0, 512)))}u128` });
    expect(updateWrites(v5, 'typeA', 'set_single_data_sgx', text).map((x) => x.role)).toEqual(['latest', 'historic']);
    expect(updateWrites(v5, 'typeA', 'set_multiple_data_sgx', text).length).toBe(10);
    const v3 = updateWrites(PROGRAMS.program('veru_oracle_interface_v3.aleo')!.attestedData, 'typeA', 'set_single_data_sgx', text);
    expect(v3.every((x) => x.uncertain === true && x.program === 'veru_oracle_data_v3.aleo')).toBe(true);
    // A userData that does not parse writes nothing tracked (its verification says why).
    expect(updateWrites(v5, 'typeA', 'set_single_data_sgx', '{ c0: 1u128 }')).toEqual([]);
  });

  it('an overwrite writes its own key and value; Leo literals are read strictly', () => {
    expect(unattestedWrite('veru_oracle_data_v5.aleo', { mapping: 'sgx_attested_data', key: '0077u128', value: '{ data: 5u128, attestation_timestamp: 6u128 }' })).toEqual({
      program: 'veru_oracle_data_v5.aleo',
      mapping: 'sgx_attested_data',
      key: '77u128',
      role: 'unattested',
      data: '5',
      attestationTimestamp: '6',
    });
    expect(unattestedWrite('p.aleo', { mapping: 'm', key: '77field', value: '{}' })).toBeUndefined();
    expect(canonicalU128Literal(`${1n << 128n}u128`)).toBeUndefined();
    expect(parseAttestedData('{\n  data: 123u128,\n  attestation_timestamp: 1700000000u128\n}')).toEqual({ data: '123', attestationTimestamp: '1700000000' });
    expect(parseAttestedData('{ data: 1u64, attestation_timestamp: 2u128 }')).toBeUndefined();
  });
});
