/**
 * A coverage-guided fuzzer for the project's parsers, with no dependency: V8's own block coverage
 * (the inspector's Profiler.takePreciseCoverage, call counts per block) is the feedback. Each run
 * mutates an input of the corpus (bit flips, byte sets, interesting values, inserts, deletes,
 * duplicated runs, splices of two inputs, truncation); an input that runs a function of src/ along
 * blocks not seen together before, or calls it a new power-of-two number of times, joins the
 * corpus. The PRNG is
 * seeded: the same seed, corpus and target give the same runs (CI runs a fixed number of them).
 *
 * Why not Jazzer.js: @jazzer.js/core 4.0.0's prebuilt fuzzer for linux-x64 needs GLIBC 2.38, and
 * Debian 12 has 2.36 (it fails to load); 2.1.0 downloads its prebuilt from GitHub at install, which
 * this network cannot reach; the package holds no sources to build from (BENCHMARKS.md, "Fuzzing").
 */
import { Session } from 'node:inspector/promises';
import { seededRandom } from '../support/random.js';

export interface FuzzTarget {
  readonly name: string;
  /** Seeds: the real vectors (test/fuzz/corpus/<name>/). */
  seeds(): Uint8Array[];
  /** Runs the parser on one input; throws what it finds wrong (an exception that is not the parser's declared error, a disagreement with the reference). */
  run(input: Uint8Array): void;
}

export interface Finding {
  readonly input: Uint8Array;
  readonly error: string;
}

export interface FuzzResult {
  readonly target: string;
  readonly executions: number;
  /** Distinct features of src/ reached (engine: a function with the blocks it ran and did not run). */
  readonly features: number;
  /** Blocks of src/ reported as run at least once (V8's ranges with a count). */
  readonly blocks: number;
  readonly corpus: number;
  readonly findings: Finding[];
}

const INTERESTING = [0x00, 0x01, 0x7f, 0x80, 0xff, 0x18, 0x19, 0x1a, 0x1b, 0x30, 0x82, 0x84, 0xa0, 0xbf, 0x22, 0x7b, 0x7d, 0x2c, 0x3a];

function mutate(input: Uint8Array, other: Uint8Array, rnd: () => number, maxLen: number): Uint8Array {
  const b = [...input];
  const at = () => Math.floor(rnd() * Math.max(1, b.length));
  const n = 1 + Math.floor(rnd() * 4);
  for (let k = 0; k < n; k++) {
    const op = Math.floor(rnd() * 8);
    if (op === 0 && b.length) { const i = at(); b[i] = b[i]! ^ (1 << Math.floor(rnd() * 8)); }
    else if (op === 1 && b.length) b[at()] = Math.floor(rnd() * 256);
    else if (op === 2 && b.length) b[at()] = INTERESTING[Math.floor(rnd() * INTERESTING.length)]!;
    else if (op === 3) b.splice(at(), 0, ...Array.from({ length: 1 + Math.floor(rnd() * 8) }, () => Math.floor(rnd() * 256)));
    else if (op === 4 && b.length) b.splice(at(), 1 + Math.floor(rnd() * 16));
    else if (op === 5 && b.length) {
      const s = at();
      const len = 1 + Math.floor(rnd() * 32);
      b.splice(at(), 0, ...b.slice(s, s + len));
    } else if (op === 6 && other.length) {
      const s = Math.floor(rnd() * other.length);
      b.splice(at(), Math.floor(rnd() * 32), ...other.slice(s, s + 1 + Math.floor(rnd() * 64)));
    } else if (op === 7 && b.length) b.length = at();
  }
  return new Uint8Array(b.slice(0, maxLen));
}

/**
 * V8 counts blocks only in functions compiled after block coverage is on: it is started once,
 * when this module is evaluated, before the targets' modules are imported (targets.ts is imported
 * dynamically by its users), and kept on for the life of the process.
 */
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });

const bucket = (count: number): string => (count === 0 ? 'z' : String(31 - Math.clz32(count)));

/**
 * Fuzzes `target` for `runs` executions from its seeds. A feature is a function of a script whose
 * URL contains `srcMark` together with the blocks it ran and did not run in one execution (V8 folds
 * a block that ran as often as its parent into the parent, so the blocks that did not run are what
 * tells two paths apart), and the power-of-two bucket of its call count.
 */
export async function fuzz(target: FuzzTarget, o: { runs: number; seed?: number; maxLen?: number; srcMark?: string; stopAtFinding?: boolean }): Promise<FuzzResult> {
  const rnd = seededRandom(o.seed ?? 1);
  const mark = o.srcMark ?? '/src/';
  const seen = new Set<string>();
  const blocks = new Set<string>();
  const features = async (): Promise<number> => {
    const { result } = await session.post('Profiler.takePreciseCoverage');
    let fresh = 0;
    for (const script of result) {
      if (!script.url.includes(mark) || script.url.includes('/node_modules/')) continue;
      for (const fn of script.functions) {
        if (fn.ranges[0]!.count === 0) continue;
        for (const r of fn.ranges) if (r.count > 0) blocks.add(`${script.url}:${r.startOffset}:${r.endOffset}`);
        // Which blocks ran and which did not, and how often the function ran (a power-of-two bucket);
        // the count buckets of a loop's blocks would make every input length a feature of its own.
        const [whole, ...inner] = fn.ranges;
        const f = `${script.url}:${whole!.startOffset}:${bucket(whole!.count)}:${inner.map((r) => `${r.startOffset}-${r.endOffset}${r.count === 0 ? 'z' : ''}`).join(',')}`;
        if (!seen.has(f)) {
          seen.add(f);
          fresh++;
        }
      }
    }
    return fresh;
  };
  const findings: Finding[] = [];
  const exec = (input: Uint8Array): void => {
    try {
      target.run(input);
    } catch (e) {
      findings.push({ input, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
    }
  };
  const corpus: Uint8Array[] = [];
  await features(); // drop what ran before
  for (const s of target.seeds()) {
    exec(s);
    if ((await features()) > 0 || corpus.length === 0) corpus.push(s);
  }
  if (corpus.length === 0) corpus.push(new Uint8Array(0));
  const maxLen = o.maxLen ?? Math.max(64, ...corpus.map((c) => c.length * 2));
  let i = 0;
  for (; i < o.runs && !(o.stopAtFinding && findings.length > 0); i++) {
    const base = corpus[Math.floor(rnd() * corpus.length)]!;
    const other = corpus[Math.floor(rnd() * corpus.length)]!;
    const input = mutate(base, other, rnd, maxLen);
    exec(input);
    if ((await features()) > 0) corpus.push(input);
  }
  return { target: target.name, executions: i, features: seen.size, blocks: blocks.size, corpus: corpus.length, findings };
}
