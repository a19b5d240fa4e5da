/**
 * The structural `/blocks` reader (src/ledger/node/blocks/blocksBody.ts) against its reference, JSON.parse
 * of the whole body: the same {height, timestamp, transactions} for every body, pretty or compact,
 * odd spacing, escapes in strings and member names, brackets inside strings, members in any
 * order, duplicated members; and the same named error (LEDGER_NODE_MALFORMED_BLOCKS) for every
 * truncated or corrupted body.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CappedBuffer } from '../../../../../src/upstream/body.js';
import { readBlocksJson, readBlocksStructural, readBlocksStructuralJs, blocksReading, BlocksArrival, type BlockRecord } from '../../../../../src/ledger/node/blocks/blocksBody.js';

type Out = { ok: true; blocks: BlockRecord[] } | { ok: false; code: string; message: string };
const run = (reader: typeof readBlocksJson, body: Buffer, start: number): Out => {
  try {
    return { ok: true, blocks: reader(body, start) };
  } catch (e) {
    return { ok: false, code: (e as { code?: string }).code ?? 'THROWN', message: (e as Error).message };
  }
};

/** A JSON tree whose objects are member lists, so a member may be written twice. */
type Tree = null | boolean | number | string | Tree[] | { members: [string, Tree][] };

const toTree = (v: unknown): Tree => {
  if (Array.isArray(v)) return v.map(toTree);
  if (v !== null && typeof v === 'object') return { members: Object.entries(v).map(([k, x]) => [k, toTree(x)]) };
  return v as Tree;
};

interface Style {
  /** Whitespace put between tokens, picked by a counter. */
  spaces: string[];
  /** Write every n-th character of strings and names as \uXXXX (0: never). */
  escapeEvery: number;
  pretty: boolean;
}

function writeString(s: string, st: Style, counter: { n: number }): string {
  if (st.escapeEvery === 0) return JSON.stringify(s);
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (code <= 0xffff && counter.n++ % st.escapeEvery === 0) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += JSON.stringify(ch).slice(1, -1);
  }
  return `${out}"`;
}

function write(t: Tree, st: Style, depth = 0, counter = { n: 0 }): string {
  const sp = () => st.spaces[counter.n++ % st.spaces.length]!;
  const nl = (d: number) => (st.pretty ? `\n${'  '.repeat(d)}` : sp());
  if (t === null || typeof t === 'boolean' || typeof t === 'number') return JSON.stringify(t);
  if (typeof t === 'string') return writeString(t, st, counter);
  if (Array.isArray(t)) {
    if (t.length === 0) return `[${sp()}]`;
    return `[${t.map((x) => `${nl(depth + 1)}${write(x, st, depth + 1, counter)}${sp()}`).join(',')}${nl(depth)}]`;
  }
  if (t.members.length === 0) return `{${sp()}}`;
  const sep = st.pretty ? ': ' : `${sp()}:${sp()}`;
  return `{${t.members.map(([k, x]) => `${nl(depth + 1)}${writeString(k, st, counter)}${sep}${write(x, st, depth + 1, counter)}${sp()}`).join(',')}${nl(depth)}}`;
}

const style: fc.Arbitrary<Style> = fc.record({
  spaces: fc.array(fc.constantFrom('', ' ', '\n', '\t', '\r\n', '   '), { minLength: 1, maxLength: 4 }),
  escapeEvery: fc.constantFrom(0, 0, 1, 3, 7),
  pretty: fc.boolean(),
});

/** Strings full of what trips a naive skip: quotes, backslashes, brackets, escapes. */
const nasty = fc.string({ unit: fc.constantFrom('"', '\\', '[', ']', '{', '}', ',', ':', 'a', 'é', '😀', '\n', '\u0000', '/', ' ') });
const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    nasty,
    fc.jsonValue({ maxDepth: 2 }),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(nasty, tie('v'), { maxKeys: 3 }),
  ),
})).v;

/** One block: header, transactions, a fake authority and other members, in any order, some twice. */
const block = (height: number): fc.Arbitrary<Tree> =>
  fc
    .record({
      timestamp: fc.integer({ min: 0, max: 2 ** 40 }),
      txs: fc.array(value, { maxLength: 3 }),
      authority: value,
      extra: fc.dictionary(fc.constantFrom('block_hash', 'ratifications', 'solutions', 'aborted_transaction_ids', 'x'), value, { maxKeys: 4 }),
      order: fc.integer({ min: 0, max: 1000 }),
      dupHeader: fc.boolean(),
      dupTxs: fc.option(fc.array(value, { maxLength: 2 })),
      metaExtra: fc.dictionary(fc.constantFrom('network', 'round', 'cumulative_weight'), fc.jsonValue({ maxDepth: 1 })),
    })
    .map((r) => {
      const header = toTree({ previous_state_root: 'sr1"[{', metadata: { ...r.metaExtra, height, timestamp: r.timestamp } });
      const members: [string, Tree][] = [
        ['header', header],
        ['authority', toTree(r.authority)],
        ['transactions', toTree(r.txs)],
        ...Object.entries(r.extra).map(([k, x]): [string, Tree] => [k, toTree(x)]),
      ];
      // a rotation puts the members in another order
      const k = r.order % members.length;
      const ordered = [...members.slice(k), ...members.slice(0, k)];
      // a duplicate written before the real one: JSON.parse keeps the last
      if (r.dupHeader) ordered.unshift(['header', toTree({ metadata: { height: height + 1000, timestamp: 1 } })]);
      if (r.dupTxs) ordered.unshift(['transactions', toTree(r.dupTxs)]);
      return { members: ordered };
    });

const body = fc
  .record({ start: fc.integer({ min: 0, max: 30_000_000 }), n: fc.integer({ min: 0, max: 4 }), style })
  .chain(({ start, n, style: st }) => fc.tuple(fc.constant(start), fc.constant(st), fc.tuple(...Array.from({ length: n }, (_, i) => block(start + i)))));

describe('structural /blocks reader', () => {
  it('reads what JSON.parse reads, for every shape of body', () => {
    fc.assert(
      fc.property(body, ([start, st, blocks]) => {
        const text = write(blocks as Tree[], st);
        const buf = Buffer.from(text, 'utf8');
        const ref = run(readBlocksJson, buf, start);
        expect(ref.ok).toBe(true);
        expect(run(readBlocksStructural, buf, start)).toEqual(ref);
      }),
      { numRuns: 150 },
    );
  });

  it('fails with the same named error wherever the body is cut or corrupted', () => {
    const corrupt = fc.constantFrom(...'{}[],:"\\ 0a-e.tn'.split('').map((c) => c.charCodeAt(0)));
    fc.assert(
      fc.property(body, fc.nat(), fc.option(corrupt), ([start, st, blocks], at, flip) => {
        // Whitespace without control characters: the structural reader does not look for them inside skipped strings.
        const buf = Buffer.from(write(blocks as Tree[], { ...st, pretty: false, spaces: st.spaces.map((x) => x.replace(/[^ ]/g, ' ')) }), 'utf8');
        const p = at % (buf.length + 1);
        const bad = flip === null ? buf.subarray(0, p) : Buffer.concat([buf.subarray(0, p), Buffer.from([flip]), buf.subarray(p + 1)]);
        const ref = run(readBlocksJson, bad, start);
        const got = run(readBlocksStructural, bad, start);
        if (ref.ok) expect(got).toEqual(ref);
        else expect(got).toMatchObject({ ok: false, code: 'LEDGER_NODE_MALFORMED_BLOCKS' });
        expect(ref.ok || ref.code === 'LEDGER_NODE_MALFORMED_BLOCKS').toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('reads pretty indentation of any length at any alignment like JSON.parse, a run corrupted or cut anywhere included', () => {
    const blocks = [
      { header: { metadata: { height: 7, timestamp: 1 } }, authority: { a: [[[['x', 1]]], { b: [{ c: 'y' }] }] }, transactions: [] },
      { header: { metadata: { height: 8, timestamp: 2 } }, transactions: [{ id: 'at8' }] },
    ];
    for (const indent of [1, 3, 8, 9]) {
      const text = JSON.stringify(blocks, null, indent);
      const lines: number[] = [];
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines.push(i + 1);
      for (let shift = 0; shift < 8; shift++) {
        // the body at every offset of its ArrayBuffer (the runs start at every alignment)
        const at = (bytes: Buffer): Buffer => {
          const host = Buffer.alloc(bytes.length + 16, 0x20);
          bytes.copy(host, shift);
          return host.subarray(shift, shift + bytes.length);
        };
        const whole = Buffer.from(text);
        expect(run(readBlocksStructural, at(whole), 7)).toEqual(run(readBlocksJson, whole, 7));
        // a byte in an indentation run replaced, or the body cut inside it
        for (const line of lines.filter((_, k) => k % 3 === shift % 3)) {
          for (let d = 0; whole[line + d] === 0x20; d++) {
            for (const c of ['x', ',', '"', '\t', '\n']) {
              const bad = Buffer.from(whole);
              bad[line + d] = c.charCodeAt(0);
              const ref = run(readBlocksJson, bad, 7);
              const got = run(readBlocksStructural, at(bad), 7);
              if (ref.ok) expect(got).toEqual(ref);
              else expect(got).toMatchObject({ ok: false, code: 'LEDGER_NODE_MALFORMED_BLOCKS' });
            }
            const cut = whole.subarray(0, line + d);
            expect(run(readBlocksStructural, at(cut), 7)).toMatchObject({ ok: false, code: 'LEDGER_NODE_MALFORMED_BLOCKS' });
          }
        }
      }
    }
  });

  const good = (h: number) => ({ header: { metadata: { height: h, timestamp: 1700000000 + h } }, authority: { a: ['[{"'] }, transactions: [{ id: `at${h}` }] });

  it.each([
    ['truncated', JSON.stringify([good(5), good(6)], null, 2).slice(0, -40), 'end of the body'],
    ['not JSON', '<html>502 Bad Gateway</html>', 'expected a value'],
    ['an object, not an array', JSON.stringify({ blocks: [good(5)] }), 'not a JSON array'],
    ['trailing data', `${JSON.stringify([good(5)])}]`, 'unexpected data'],
    ['a block without height', JSON.stringify([{ header: { metadata: { timestamp: 1 } }, transactions: [] }]), 'header.metadata.height'],
    ['a block without timestamp', JSON.stringify([{ header: { metadata: { height: 5 } }, transactions: [] }]), 'header.metadata.timestamp'],
    ['transactions not an array', JSON.stringify([{ ...good(5), transactions: {} }]), 'no transactions array'],
    ['a block that is a string', JSON.stringify(['block']), 'not a JSON object'],
    ['a bad escape in the authority', JSON.stringify([good(5)]).replace('"[{', '"\\q'), 'bad escape'],
    ['an unclosed authority', '[{"header":{"metadata":{"height":5,"timestamp":1}},"authority":{"a":[1,2}', 'expected "," or "]"'],
  ])('names a body that is %s (LEDGER_NODE_MALFORMED_BLOCKS)', (_name, text, why) => {
    for (const reader of [readBlocksStructural, readBlocksJson]) {
      const out = run(reader, Buffer.from(text), 5);
      expect(out).toMatchObject({ ok: false, code: 'LEDGER_NODE_MALFORMED_BLOCKS' });
      expect((out as { message: string }).message).toMatch(/height 5/);
    }
    expect((run(readBlocksStructural, Buffer.from(text), 5) as { message: string }).message).toContain(why);
  });

  it('reads while the bytes arrive unless VERIFIER_BLOCKS_READER picks a reader of the whole body (json, js, whole)', () => {
    expect(blocksReading({})(5)).toBeInstanceOf(BlocksArrival);
    const text = Buffer.from(JSON.stringify([good(5)]));
    for (const v of ['json', 'js', 'whole']) {
      const r = blocksReading({ VERIFIER_BLOCKS_READER: v })(5);
      expect(r.arrived).toBeUndefined();
      expect(r.read(text, 1)).toEqual(readBlocksJson(text, 5));
    }
    expect(readBlocksStructuralJs(text, 5)).toEqual(readBlocksJson(text, 5));
  });
});

describe('reading a /blocks body while it arrives (BlocksArrival)', () => {
  /** The body landing in one buffer at the given sizes (a retry's bytes in the same buffer), then read whole. */
  const arrive = (body: Buffer, start: number, landings: number[], o: { minTry?: number; window?: number } = {}, before?: Buffer) => {
    const a = new BlocksArrival(start, { minTry: o.minTry ?? 1, ...(o.window ? { skip: { window: o.window } } : {}) });
    const buf = Buffer.alloc(Math.max(body.length, before?.length ?? 0) + 64, 0x41);
    if (before) {
      // An earlier attempt's bytes, cut, then the retry's in the same buffer.
      for (const n of landings.filter((x) => x < before.length)) {
        before.copy(buf, 0, 0, n);
        a.arrived(buf, n, 1);
      }
    }
    let at = 0;
    for (const n of [...landings.filter((x) => x <= body.length), body.length]) {
      body.copy(buf, at, at, n);
      at = n;
      a.arrived(buf, n, 2);
    }
    try {
      return { ok: true, blocks: a.read(buf.subarray(0, body.length), 2) };
    } catch (e) {
      return { ok: false, code: (e as { code?: string }).code ?? 'THROWN', message: (e as Error).message };
    }
  };
  const landings = fc.array(fc.nat(), { maxLength: 12 }).map((xs) => xs.sort((x, y) => x - y));

  it('gives the whole body’s answer and error, byte for byte, wherever the bytes landed', () => {
    const corrupt = fc.constantFrom(...'{}[],:"\\ 0a-e.tn'.split('').map((c) => c.charCodeAt(0)));
    fc.assert(
      fc.property(body, landings, fc.option(fc.tuple(fc.nat(), corrupt), { freq: 2 }), fc.constantFrom(undefined, 8, 64), ([start, st, blocks], cuts, flip, window) => {
        const buf = Buffer.from(write(blocks as Tree[], { ...st, spaces: st.spaces.map((x) => x.replace(/[^ ]/g, ' ')) }), 'utf8');
        let bad = buf;
        if (flip) {
          bad = Buffer.from(buf);
          bad[flip[0] % buf.length] = flip[1];
        }
        const at = cuts.map((c) => c % (bad.length + 1));
        const ref = run(readBlocksStructuralJs, bad, start);
        expect(arrive(bad, start, at, { ...(window ? { window } : {}) })).toEqual(ref);
        expect(arrive(bad.subarray(0, at[0] ?? 0), start, at)).toEqual(run(readBlocksStructuralJs, bad.subarray(0, at[0] ?? 0), start));
      }),
      { numRuns: 300 },
    );
  });

  it('starts over on a retry: nothing read from an earlier attempt’s bytes is kept', () => {
    const block = (id: string, h: number) => ({ header: { metadata: { height: h, timestamp: h } }, transactions: [{ id }] });
    const first = Buffer.from(JSON.stringify([block('aaaaaaaaaa', 5), block('cccccccccc', 6)]));
    const retry = Buffer.from(JSON.stringify([block('bbbbbbbbbb', 5), block('dddddddddd', 6)]));
    const cut = first.lastIndexOf('{"header"');
    const got = arrive(retry, 5, [cut, cut + 1], {}, first);
    expect(got).toEqual(run(readBlocksStructuralJs, retry, 5));
    expect(JSON.stringify(got)).not.toContain('aaaaaaaaaa');
    // Had the attempt's number not changed, the earlier bytes' block would have been kept: the check is not vacuous.
    const a = new BlocksArrival(5, { minTry: 1 });
    a.arrived(first, cut, 1);
    expect(JSON.stringify(a.read(retry, 1))).toContain('aaaaaaaaaa');
  });

  it('is one listener of the body sink, which stops telling one that throws and reads the body on', () => {
    const sink = new CappedBuffer(1000, undefined, undefined);
    const told: number[] = [];
    sink.onBytes = (_b, size) => {
      told.push(size);
      if (size > 3) throw new Error('a reader bug');
    };
    for (const part of ['[1', ',2', ',3]']) expect(sink.push(Buffer.from(part))).toBeUndefined();
    expect(told).toEqual([2, 4]);
    const done = sink.done();
    expect(done.ok && done.bytes.toString()).toBe('[1,2,3]');
  });
});
