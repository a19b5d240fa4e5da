/** CLI building blocks: arguments, transition extraction, shards, merge, summary, rate limit, progress. */
import { describe, expect, it, vi } from 'vitest';
import type { ErrorCode } from '../../../src/errorCodes.js';
import { parseOptions, usage, type CommandSpec } from '../../../src/cli/args.js';
import { COLLATERAL_FETCH, COLLATERAL_USAGE } from '../../../src/cli/collateral.js';
import { REVERIFY, REVERIFY_USAGE } from '../../../src/cli/reverify.js';
import { VERIFY, VERIFY_USAGE } from '../../../src/cli/verify.js';
import { itemsOfTransaction } from '../../../src/ledger/records/transitions.js';
import type { BlockScanner } from '../../../src/ledger/node/blocks/fetchBlocks.js';
import { mergeRecords } from '../../../src/cli/merge.js';
import { ProgramRegistry } from '../../../src/ledger/programs.js';
import { resolveConfig } from '../../../src/config/load.js';
import { updateRecord, type OutputRecord } from '../../../src/ledger/records/updateRecord.js';
import { MeasurementState } from '../../../src/ledger/records/measurementState.js';
import { Summary } from '../../../src/cli/summary.js';
import { RateLimiter } from '../../../src/rateLimit.js';
import { blockSource, parseShard } from '../../../src/cli/sources.js';
import { Progress } from '../../../src/cli/progress.js';
import { LedgerChain, t } from '../../support/ledger-chain.js';
import { formatUniqueId } from '../../../src/aleo/ids.js';

const P = 'official_oracle.aleo';
const UD = '{ c0: { f0: 1u128 } }';

describe('arguments', () => {
  const spec = {
    command: 'test',
    options: {
      out: { kind: 'string', arg: 'FILE', required: true, help: 'the output' },
      fmspc: { kind: 'list', arg: 'HEX', help: 'platforms' },
      resume: { kind: 'flag', help: 'go on' },
      at: { kind: 'time', arg: 'ISO-TIME', help: 'when' },
      n: { kind: 'int', arg: 'N', min: 1, max: 9, default: 4, help: 'how many', group: 'tuning' },
      rate: { kind: 'number', arg: 'R', above: 0, default: 5, help: 'how fast', group: 'tuning' },
    },
    notes: ['exit: 0 fine'],
  } as const satisfies CommandSpec;
  const parse = (...argv: string[]) => parseOptions(argv, spec);

  it('parses values, lists, flags and refuses unknown or repeated options', () => {
    const a = parse('--out=x', '--fmspc', 'a', 'b', '--resume', 'pos');
    expect(a.string('out')).toBe('x');
    expect(a.list('fmspc')).toEqual(['a', 'b']);
    expect(a.flag('resume')).toBe(true);
    expect(a.positionals).toEqual(['pos']);
    expect(a.help).toBe(false);
    expect(() => parse('--nope')).toThrow(/unknown option --nope/);
    expect(() => parse('--nope=1')).toThrow(/^unknown option --nope$/);
    expect(() => parse('--out', 'a', '--out', 'b')).toThrow(/given twice/);
    expect(() => parse('--out')).toThrow(/needs a value/);
    expect(() => parse('--resume=yes')).toThrow('option --resume takes no value');
    expect(() => parse('--fmspc', '--resume')).toThrow('option --fmspc needs at least one value');
    expect(parse('--help').help).toBe(true);
    expect(parse('-h').help).toBe(true);
  });

  it('a value is the next argument whatever it is; a list takes the arguments up to the next option', () => {
    expect(parse('--out', '--resume').string('out')).toBe('--resume');
    expect(parse('--out', '--resume').flag('resume')).toBe(false);
    const a = parse('--fmspc=a', 'b', '--fmspc', 'c', 'd', '--out', 'o', 'e');
    expect(a.list('fmspc')).toEqual(['a', 'c', 'd']);
    expect(a.positionals).toEqual(['b', 'e']);
    expect(parse('--fmspc', 'a', '--fmspc', '--resume').list('fmspc')).toEqual(['a']);
    expect(parse('--fmspc', 'a', '--', 'b').positionals).toEqual(['b']);
  });

  it('converts numbers and times when read, with the defaults and ranges of the table', () => {
    expect(parse().int('n')).toBe(4);
    expect(parse().int('n', 7)).toBe(7);
    expect(parse('--n', '9').int('n')).toBe(9);
    expect(() => parse('--n', '10').int('n')).toThrow('--n "10": expected an integer from 1 to 9');
    expect(() => parse('--n', '1.5').int('n')).toThrow(/expected an integer/);
    expect(parse().number('rate')).toBe(5);
    expect(parse('--rate', '0.5').number('rate')).toBe(0.5);
    expect(() => parse('--rate', '0').number('rate')).toThrow('--rate "0": expected a number > 0');
    expect(parse('--at', '2026-09-23T00:00:00Z').time('at')).toBe(Date.UTC(2026, 8, 23));
    expect(() => parse('--at', '2026-09-23').time('at')).toThrow(/ISO-8601/);
    expect(parse('--out', '').missingRequired()).toBe(true);
    expect(parse('--out', 'x').missingRequired()).toBe(false);
  });

  it('the help text comes from the same table', () => {
    expect(usage(spec)).toBe(
      [
        'usage: oracle-verifier test --out FILE [--fmspc HEX [HEX…]] [--resume] [--at ISO-TIME] [--n N]',
        '       [--rate R]',
        'options:',
        '  --out FILE          the output (required)',
        '  --fmspc HEX [HEX…]  platforms',
        '  --resume            go on',
        '  --at ISO-TIME       when',
        'tuning:',
        '  --n N               how many (1 to 9; default: 4)',
        '  --rate R            how fast (> 0; default: 5)',
        'exit: 0 fine',
      ].join('\n'),
    );
    for (const [cmd, text] of [
      [VERIFY, VERIFY_USAGE],
      [REVERIFY, REVERIFY_USAGE],
      [COLLATERAL_FETCH, COLLATERAL_USAGE],
    ] as const) {
      for (const name of Object.keys(cmd.options)) expect(text).toContain(`--${name} `);
      expect(text.split('\n').every((l) => l.length <= 100)).toBe(true);
    }
  });

  it('reads shards i/n with i < n', () => {
    expect(parseShard('1/3')).toEqual({ index: 1, count: 3 });
    expect(() => parseShard('3/3')).toThrow(/0 ≤ i < n/);
    expect(() => parseShard('x')).toThrow();
  });
});

describe('transition extraction', () => {
  const chain = new LedgerChain(1, 10);
  const sgx = chain.add(2, [t.transfer(), t.setDataSgx(P, UD, '{ c0: { f0: 2u128 } }'), t.other('other.aleo', 'set_data_sgx', [UD, UD])]);
  chain.add(3, [t.setDataSgx(P, UD, UD)], { rejected: true });
  const own = chain.add(4, [t.setUniqueId(P, formatUniqueId(new Uint8Array(32).fill(7))), t.setPcrValues(P, '{ nope: 1u128 }'), t.setKey(P)]);
  const bad = chain.add(5, [{ program: P, function: 'set_data_nitro', inputs: [UD] }]);
  const all = [2, 3, 4, 5].flatMap((h) => ((chain.block(h).transactions as unknown[]).flatMap((tx) => itemsOfTransaction(tx, [P], h))));

  it('keeps only accepted set_data_* and owner transitions of the program, in order', () => {
    expect(all.map((i) => i.type)).toEqual(['update', 'owner', 'owner', 'update-malformed']);
    const u = all[0]!;
    expect(u.type === 'update' && u.base).toEqual({ transactionId: sgx.transactionId, transitionId: sgx.transitionIds[1], blockHeight: 2, program: P, function: 'set_data_sgx' });
    expect(u.type === 'update' && u.report).toMatch(/^\{\n {2}c0: \{\n {4}f0: 2u128/); // the ledger's pretty Leo text, as served
  });
  it('parses owner measurements and reports malformed ones', () => {
    const [a, b] = all.slice(1) as { type: 'owner'; record: OutputRecord }[];
    expect(a!.record).toMatchObject({ transitionId: own.transitionIds[0], kind: 'measurement', measurement: { uniqueId: '07'.repeat(32) } });
    expect(b!.record).toMatchObject({ function: 'set_pcr_values', errorCode: expect.stringMatching(/^STRUCT_/) });
    expect(b!.record.measurement).toBeUndefined();
    const m = all[3] as { type: 'update-malformed'; record: OutputRecord };
    expect(m.record).toMatchObject({ transitionId: bad.transitionIds[0], reportValid: false, errorCode: 'LEDGER_TRANSITION_MALFORMED', kind: 'typeB' });
  });
});

describe('block source', () => {
  const fakeScanner = (log: number[]): BlockScanner => ({
    client: { baseUrl: 'x', getJson: async () => null, getBytes: async () => Buffer.alloc(0) },
    blockSource: async () => 'blocks',
    knownBlockSource: 'blocks',
    latestHeight: async () => 0,
    async fetchRange(s, e) {
      log.push(s);
      await new Promise((r) => setTimeout(r, (s * 7919) % 13)); // out-of-order completion
      return Array.from({ length: e - s }, (_, i) => ({ height: s + i, timestamp: 0, transactions: [] }));
    },
  });
  const collect = async (shard: { index: number; count: number } | undefined, cursor = 100) => {
    const log: number[] = [];
    const src = blockSource({ scanner: fakeScanner(log), programs: [P], from: 100, to: 337, batchSize: 50, concurrency: 3, node: 'x', ...(shard ? { shard } : {}) });
    const out: [number, number][] = [];
    for await (const b of src.batches(cursor, () => false)) out.push([b.cursor, b.units]);
    return { out, remaining: src.remaining(cursor) };
  };

  it('yields batches in height order with cursors at batch ends; shards split them exactly', async () => {
    const all = await collect(undefined);
    expect(all.out).toEqual([[150, 50], [200, 50], [250, 50], [300, 50], [337, 37]]);
    expect(all.remaining).toBe(237);
    const s0 = await collect({ index: 0, count: 2 });
    const s1 = await collect({ index: 1, count: 2 });
    expect(s0.out.map((x) => x[0])).toEqual([150, 250, 337]);
    expect(s1.out.map((x) => x[0])).toEqual([200, 300]);
    expect(s0.remaining! + s1.remaining!).toBe(237);
    expect((await collect({ index: 0, count: 2 }, 250)).out.map((x) => x[0])).toEqual([337]); // resume
  });
});

describe('records, merge and summary', () => {
  const up = (h: number, id: string, kind: 'typeA' | 'typeB', m: object, valid = true, code?: ErrorCode): OutputRecord => ({
    transactionId: `at${id}`, transitionId: `au${id}`, blockHeight: h, function: kind === 'typeA' ? 'set_data_sgx' : 'set_data_nitro', kind, reportValid: valid,
    ...(code ? { errorCode: code, errorString: code } : {}), measurements: m as OutputRecord['measurements'],
  });
  const own = (h: number, id: string, m: OutputRecord['measurement']): OutputRecord => ({ transactionId: `at${id}`, transitionId: `au${id}`, blockHeight: h, function: 'set_unique_id', kind: 'measurement', measurement: m! });

  it('dedups, sorts by height (stable) and replays the measurement in force', () => {
    const a = [own(5, 'o1', { uniqueId: 'aa' }), up(6, 'u1', 'typeA', { uniqueId: 'aa' }), up(9, 'u3', 'typeB', { pcrs: ['1', '2', '3'] })];
    const b = [up(7, 'u2', 'typeA', { uniqueId: 'bb' }, false, 'TYPEA_UNIQUE_ID_MISMATCH'), own(8, 'o2', { uniqueId: 'bb' }), up(8, 'u4', 'typeA', { uniqueId: 'bb' })];
    const m = mergeRecords([b, a, b]);
    expect(m.map((r) => r.transitionId)).toEqual(['auo1', 'auu1', 'auu2', 'auo2', 'auu4', 'auu3']);
    expect(m[1]!.measurementInForce).toEqual({ matches: true, sourceHeight: 5 });
    expect(m[2]!.measurementInForce).toEqual({ matches: false, sourceHeight: 5 });
    expect(m[4]!.measurementInForce).toEqual({ matches: true, sourceHeight: 8 });
    // No PCR values replayed: unknown, and why (issue 32, item 8).
    expect(m[5]!.measurementInForce).toEqual({ matches: 'unknown', reason: expect.stringMatching(/^no owner transition setting its pcrs was replayed before this update/) });
    // Records of runs before `outcome` existed get theirs (by the code's traits) in the documented place.
    expect(Object.keys(m[1]!)).toEqual(['transactionId', 'transitionId', 'blockHeight', 'function', 'kind', 'reportValid', 'outcome', 'measurements', 'measurementInForce']);
    expect(m.map((r) => r.outcome)).toEqual([undefined, 'valid', 'invalid', undefined, 'valid', 'valid']);
  });

  it('builds update records from outcomes and counts kind × outcome × code', () => {
    const r = updateRecord({ id: 'x' }, { reportType: 'typeA', reportValid: false, error: { code: 'PCCS_UNAVAILABLE', message: 'down' }, decodedReport: { uniqueId: Buffer.alloc(32, 1).toString('base64'), tcbStatusName: 'OutOfDate' } });
    expect(r).toEqual({ id: 'x', kind: 'typeA', reportValid: false, outcome: 'unverifiable', errorCode: 'PCCS_UNAVAILABLE', errorString: 'down', tcbStatus: 'OutOfDate', measurements: { uniqueId: '01'.repeat(32) } });
    expect(Object.keys(r).slice(0, 4)).toEqual(['id', 'kind', 'reportValid', 'outcome']);
    const s = new Summary();
    s.add(up(1, 'a', 'typeB', {}));
    expect(s.exitCode()).toBe(0);
    s.add(up(2, 'b', 'typeA', {}, false, 'USERDATA_HASH_MISMATCH'));
    expect(s.exitCode()).toBe(1);
    s.add(r);
    expect(s.exitCode()).toBe(2);
    s.add(own(3, 'c', { uniqueId: 'aa' }));
    const table = s.table();
    expect(table).toMatch(/typeA\s+invalid\s+USERDATA_HASH_MISMATCH\s+1/);
    expect(table).toMatch(/typeA\s+unverifiable\s+PCCS_UNAVAILABLE\s+1/);
    expect(table).toMatch(/updates 3: valid 1, invalid 1, unverifiable 1; measurement transitions 1/);
  });

  it('replays owner transitions in the program that holds the mappings, for programs config.json defines too', () => {
    const cfg = resolveConfig(
      {
        port: 0,
        liveCheck: { skip: true },
        ledgerPrograms: [
          { id: 'my_iface_v1.aleo', functions: { set_data_sgx: { role: 'update', kind: 'typeA', userData: 0, report: 1 } }, mappingProgram: 'my_data_v1.aleo', measurements: ['uniqueId'], related: ['my_data_v1.aleo'] },
          { id: 'my_data_v1.aleo', functions: { set_unique_id: { role: 'measurement', sets: 'uniqueId', input: 0 } }, measurements: ['uniqueId'] },
        ],
      },
      '/etc/verifier',
    );
    const owner = { ...own(5, 'o1', { uniqueId: 'aa' }), program: 'my_data_v1.aleo' };
    const update = { ...up(6, 'u1', 'typeA', { uniqueId: 'aa' }), program: 'my_iface_v1.aleo' };
    // The built-in registry does not know that the interface's measurement lives in the data program.
    expect(mergeRecords([[owner, update]])[1]!.measurementInForce).toMatchObject({ matches: 'unknown', reason: expect.stringContaining('no owner transition of my_iface_v1.aleo setting its uniqueId') });
    const m = mergeRecords([[owner, update]], new ProgramRegistry(cfg.definedPrograms));
    expect(m[1]!.measurementInForce).toEqual({ matches: true, sourceHeight: 5 });
  });

  it('annotate replaces a stale measurementInForce by "unknown" and why when nothing is in force; the summary counts it', () => {
    const st = new MeasurementState();
    const r = { ...up(1, 'a', 'typeA', { uniqueId: 'aa' }), program: 'veru_oracle_interface_v3.aleo', measurementInForce: { matches: true, sourceHeight: 0 } };
    const annotated = st.annotate(r);
    expect(annotated.measurementInForce).toEqual({
      matches: 'unknown',
      reason: expect.stringMatching(/^no owner transition of veru_oracle_data_v3\.aleo setting its uniqueId was replayed before this update/),
    });
    const s = new Summary();
    s.add(own(0, 'o0', { pcrs: ['00', '11', '22'] }));
    s.add(annotated);
    s.add({ ...st.annotate(up(2, 'b', 'typeA', { uniqueId: 'aa' })) });
    expect(s.table()).toMatch(/updates 2: .*; measurement transitions 1, updates not matching the measurement in force 0, with the measurement in force unknown 2$/m);
  });
});

describe('rate limit and progress', () => {
  it('spaces acquisitions 1/rps apart, the first at once', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    try {
      const rl = new RateLimiter(50);
      const t0 = Date.now();
      const at: number[] = [];
      const all = Promise.all(Array.from({ length: 6 }, async () => {
        await rl.acquire();
        at.push(Date.now() - t0);
      }));
      await vi.advanceTimersByTimeAsync(0);
      expect(at).toEqual([0]);
      await vi.advanceTimersByTimeAsync(19);
      expect(at).toEqual([0]);
      await vi.advanceTimersByTimeAsync(1);
      expect(at).toEqual([0, 20]);
      await vi.advanceTimersByTimeAsync(80);
      await all;
      expect(at).toEqual([0, 20, 40, 60, 80, 100]);
    } finally {
      vi.useRealTimers();
    }
  });
  it('prints rate and ETA; rewrites in place on a TTY', () => {
    let out = '';
    const p = new Progress({ total: 200, unit: 'blocks', tty: true, intervalMs: 0, write: (s) => (out += s) });
    p.add(50, 7);
    expect(p.line()).toMatch(/^blocks 50\/200 \(25\.0%\), updates 7, [\d.]+ updates\/s, [\d.]+ blocks\/s ETA \S+$/);
    p.stop();
    expect(out.startsWith('\r')).toBe(true);
    expect(out.endsWith('\n')).toBe(true);
  });
});
