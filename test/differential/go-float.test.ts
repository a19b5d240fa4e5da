/**
 * Differential test of the notarizer's float rule against Go's own math/big: the Go program in
 * go-float/ runs the same steps with the library the notarizer's encoder is written with, and
 * every answer must be identical — the encode outcome (u64 or refusal reason) for tens of
 * thousands of generated strings, and big.Float Text('f', n) (fixed and shortest) for random
 * 64-bit values. Needs the Go toolchain (Debian package `golang-go`, installed by .ci/run);
 * skipped with a message only outside CI.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isVerifierError } from '../../src/errors.js';
import { encodeFloatValue } from '../../src/encoding/floatEncode.js';
import { ZERO, textF } from '../../src/encoding/goFloat.js';
import { prepareAttestationData } from '../../src/encoding/index.js';

const goBin = (() => {
  const r = spawnSync('go', ['version'], { encoding: 'utf8' });
  return r.status === 0 ? 'go' : undefined;
})();
const inCi = process.env.CI === 'true';
if (!goBin && !inCi) {
  console.warn('go-float.test.ts SKIPPED: no Go toolchain (install the Debian package `golang-go`). In CI (CI=true) this test fails instead.');
}

/** Deterministic generator (xorshift32) so a failure is reproducible. */
function rng(seed: number): { int: (n: number) => number; pick: <T>(a: readonly T[]) => T; chance: (p: number) => boolean } {
  let s = seed >>> 0 || 1;
  const next = (): number => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
  return {
    int: (n) => Math.floor(next() * n),
    pick: (a) => a[Math.floor(next() * a.length)]!,
    chance: (p) => next() < p,
  };
}

const CODE_CLASS: Record<string, string> = {
  ENCODE_PRECISION_TOO_BIG: 'precision',
  ENCODE_FLOAT_PARSE: 'parse',
  ENCODE_TOO_PRECISE: 'tooPrecise',
  ENCODE_DECIMALLESS_SCIENTIFIC: 'decimalless',
  ENCODE_SCIENTIFIC_NOTATION: 'scientific',
  ENCODE_NEGATIVE_FLOAT: 'negative',
  ENCODE_FLOAT_LOSSY: 'lossy',
};

function ours(data: string, p: number): string {
  try {
    return `ok ${encodeFloatValue(data, p)}`;
  } catch (e) {
    if (!isVerifierError(e)) throw e;
    return `err ${CODE_CLASS[e.code] ?? e.code}`;
  }
}

const SPECIALS = [
  '', '.', '..', '0', '00', '0.', '.0', '0.0', '000.000', '5.', '.5', '+1.5', '+.5', '+', '-1', '-0', '1-',
  'inf', '+inf', 'Inf', 'INF', '-inf', 'infinity', 'nan', 'NaN', '1e5', '1E5', '1.5e3', '1e', '1e+5', '1e-5', '1p3', '1P3',
  '1p-3', '1.5p-2', '0x1p-2', 'P-1', '1p+3', '0e99999999999999999999', '1e99999999999999999999', '1e2147483647', '1p2147483648', '1p99999', '1e99999', '0x10', '0X1p4',
  '1_000', ' 1', '1 ', '1,5', '١', 'İnf', '１', '1.2.3', '12.5abc', 'e5', '.e5', '0.0e5', '18446744073709551615',
  '18446744073709551616', '18446744073709551615.5', '9007199254740993', '9007199254740992.5', '00012.5', '123456789.123456789',
  '99999999999999999999', '0.000000000001', '0.0000000000005', '4503599627370495.5', '1' + '0'.repeat(300),
  '10715086071862673209484250490600018105614048117055336074437503883703510511249361224931983788156958581275946729175531468251871452856923140435984577574698574803934567774824230985421074605062371141877954182153046474983581941267398767559165543946077062914571196477686542167660429831652624386837205668069376',
];

function digits(r: ReturnType<typeof rng>, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(48 + r.int(10));
  return s;
}

/** Decimal strings of every shape the rule distinguishes, raw and as the notarizer pads them. */
function encodeCases(count: number): Array<{ data: string; p: number }> {
  const r = rng(0x5eed1234);
  const out: Array<{ data: string; p: number }> = [];
  for (const s of SPECIALS) for (let p = 0; p <= 13; p++) out.push({ data: s, p });
  while (out.length < count) {
    const p = r.int(14);
    let s: string;
    switch (r.int(4)) {
      case 0: {
        // free digits with a point anywhere
        const d = digits(r, 1 + r.int(24));
        const at = r.int(d.length + 2) - 1;
        s = at < 0 ? d : `${d.slice(0, at)}.${d.slice(at)}`;
        break;
      }
      case 1: {
        // exactly k / 10^q for a random u64 k: usually encodable
        const k = (BigInt(r.int(2 ** 32)) << 32n) | BigInt(r.int(2 ** 32));
        const q = r.int(13);
        const t = (k >> BigInt(r.int(64))).toString().padStart(q + 1, '0');
        s = q === 0 ? t : `${t.slice(0, t.length - q)}.${t.slice(t.length - q)}`;
        break;
      }
      case 2: {
        // around powers of two and ten, where 64- and 53-bit roundings bite
        const base = r.chance(0.5) ? 1n << BigInt(40 + r.int(30)) : 10n ** BigInt(12 + r.int(9));
        const v = base + BigInt(r.int(2001) - 1000);
        const frac = r.chance(0.5) ? `.${digits(r, 1 + r.int(6))}` : '';
        s = `${v}${frac}`;
        break;
      }
      default: {
        // 15–21 significant digits split anywhere (the information-loss boundary)
        const d = `${1 + r.int(9)}${digits(r, 14 + r.int(7))}`;
        const at = 1 + r.int(d.length - 1);
        s = `${d.slice(0, at)}.${d.slice(at)}`;
      }
    }
    if (r.chance(0.1)) s = `0${s}`;
    if (r.chance(0.1) && s.includes('.')) s += '0'.repeat(1 + r.int(3));
    if (r.chance(0.05)) s = `+${s}`;
    // half of them as the notarizer prepares them (current era), half raw (price feeds, legacy era)
    const data = r.chance(0.5) && p <= 12 ? prepareAttestationData(s, { value: 'float', precision: p }, 'api.example.com') : s;
    out.push({ data, p });
  }
  return out;
}

function textCases(count: number): Array<{ m: bigint; e: number; p: number }> {
  const r = rng(0xfeedbeef);
  const out: Array<{ m: bigint; e: number; p: number }> = [
    { m: 0n, e: 0, p: -1 }, { m: 0n, e: 0, p: 3 }, { m: 1n << 63n, e: -63, p: -1 }, { m: 1n << 63n, e: -64, p: 0 },
    { m: 3n, e: -1, p: 0 }, { m: 5n, e: -1, p: 0 }, { m: 5n, e: -2, p: 1 }, { m: 7n, e: -2, p: 1 }, { m: 1n, e: -40, p: 5 },
  ];
  while (out.length < count) {
    let m = (BigInt(r.int(2 ** 32)) << 32n) | BigInt(r.int(2 ** 32));
    m >>= BigInt(r.int(64));
    if (m === 0n) m = 1n;
    if (r.chance(0.1)) m = (1n << 63n) + BigInt(r.int(4)) - 2n; // at the power-of-two edge
    const e = r.int(241) - 140;
    const p = r.chance(0.35) ? -1 : r.int(26);
    out.push({ m, e, p });
  }
  return out;
}

describe.skipIf(!goBin && !inCi)('float rule vs Go math/big (go-float/main.go)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'verifier-go-float-'));
  const oracle = join(dir, 'oracle');

  beforeAll(() => {
    if (!goBin) throw new Error('CI=true but no Go toolchain: install the Debian package `golang-go`');
    const env = { ...process.env, GOCACHE: join(dir, 'cache'), GOPATH: join(dir, 'gopath'), GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local', CGO_ENABLED: '0' };
    const b = spawnSync('go', ['build', '-o', oracle, '.'], { cwd: resolve(process.cwd(), 'test/differential/go-float'), env, encoding: 'utf8' });
    if (b.status !== 0) throw new Error(`go build failed: ${b.stderr}`);
  }, 180_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function askGo(requests: object[]): string[] {
    const r = spawnSync(oracle, [], { input: requests.map((q) => JSON.stringify(q)).join('\n') + '\n', encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    if (r.status !== 0) throw new Error(`oracle failed: ${r.stderr}`);
    const lines = r.stdout.split('\n');
    lines.pop();
    expect(lines.length).toBe(requests.length);
    return lines;
  }

  it('encode: same u64 or same refusal on 30,000 generated strings', () => {
    const cases = encodeCases(30_000);
    const go = askGo(cases.map((c) => ({ op: 'encode', data: c.data, p: c.p })));
    const diffs: string[] = [];
    const tally: Record<string, number> = {};
    cases.forEach((c, i) => {
      const mine = ours(c.data, c.p);
      const kind = mine.startsWith('ok') ? 'ok' : mine;
      tally[kind] = (tally[kind] ?? 0) + 1;
      if (mine !== go[i]) diffs.push(`${JSON.stringify(c.data.replace(/0{20,}$/, (z) => `0…(${z.length})`))} p=${c.p}: ours ${mine}, Go ${go[i]}`);
    });
    expect(diffs.slice(0, 20)).toEqual([]);
    // the generator must keep reaching every outcome, or the comparison says little
    for (const k of ['ok', 'err lossy', 'err tooPrecise', 'err parse', 'err scientific', 'err decimalless', 'err negative', 'err precision']) {
      expect(tally[k] ?? 0, k).toBeGreaterThan(10);
    }
    expect(tally.ok!).toBeGreaterThan(5_000);
    expect(tally['err lossy']!).toBeGreaterThan(1_000);
  }, 120_000);

  it("Text('f', n) and the shortest form are Go's digit for digit on 20,000 values", () => {
    const cases = textCases(20_000);
    const go = askGo(cases.map((c) => ({ op: 'text', m: c.m.toString(), e: c.e, p: c.p })));
    const diffs: string[] = [];
    cases.forEach((c, i) => {
      const mine = textF(c.m === 0n ? ZERO : { kind: 'finite', mant: c.m, exp: c.e }, c.p);
      if (mine !== go[i]) diffs.push(`${c.m}×2^${c.e} p=${c.p}: ours ${mine}, Go ${go[i]}`);
    });
    expect(diffs.slice(0, 20)).toEqual([]);
  }, 120_000);
});
