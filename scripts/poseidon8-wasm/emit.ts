/**
 * A minimal WebAssembly binary writer: just what the Poseidon8 module needs (one memory, i32/i64
 * functions without imports, straight-line code with `if`). Deterministic output, no dependencies.
 */

export const I32 = 0x7f;
export const I64 = 0x7e;
export type ValType = typeof I32 | typeof I64;

function uleb(out: number[], v: number): void {
  if (!Number.isInteger(v) || v < 0) throw new RangeError(`uleb: ${v}`);
  do {
    let b = v & 0x7f;
    v = Math.floor(v / 128);
    if (v !== 0) b |= 0x80;
    out.push(b);
  } while (v !== 0);
}

function sleb(out: number[], v: bigint): void {
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    const signBit = (b & 0x40) !== 0;
    if ((v === 0n && !signBit) || (v === -1n && signBit)) {
      out.push(b);
      return;
    }
    out.push(b | 0x80);
  }
}

function name(out: number[], s: string): void {
  const b = new TextEncoder().encode(s);
  uleb(out, b.length);
  for (const x of b) out.push(x);
}

/** Code of one function body; locals are numbered after the parameters. */
export class FnBuilder {
  readonly code: number[] = [];
  private readonly locals: ValType[] = [];

  constructor(
    readonly params: readonly ValType[],
    readonly results: readonly ValType[],
  ) {}

  local(type: ValType): number {
    this.locals.push(type);
    return this.params.length + this.locals.length - 1;
  }

  private op(...bytes: number[]): this {
    for (const b of bytes) this.code.push(b);
    return this;
  }

  get(i: number): this {
    this.op(0x20);
    uleb(this.code, i);
    return this;
  }
  set(i: number): this {
    this.op(0x21);
    uleb(this.code, i);
    return this;
  }
  tee(i: number): this {
    this.op(0x22);
    uleb(this.code, i);
    return this;
  }
  i32(v: number): this {
    this.op(0x41);
    sleb(this.code, BigInt(v | 0));
    return this;
  }
  i64(v: bigint | number): this {
    this.op(0x42);
    sleb(this.code, BigInt.asIntN(64, BigInt(v)));
    return this;
  }
  /** i64.load32_u with a constant byte offset from the i32 address on the stack. */
  load32u(offset: number): this {
    this.op(0x35, 2);
    uleb(this.code, offset);
    return this;
  }
  /** i64.store32 (low 32 bits of the i64 value) at address + offset. */
  store32(offset: number): this {
    this.op(0x3e, 2);
    uleb(this.code, offset);
    return this;
  }
  i32Load(offset: number): this {
    this.op(0x28, 2);
    uleb(this.code, offset);
    return this;
  }
  i32Store(offset: number): this {
    this.op(0x36, 2);
    uleb(this.code, offset);
    return this;
  }
  add64(): this {
    return this.op(0x7c);
  }
  sub64(): this {
    return this.op(0x7d);
  }
  mul64(): this {
    return this.op(0x7e);
  }
  and64(): this {
    return this.op(0x83);
  }
  shl64(): this {
    return this.op(0x86);
  }
  shrU64(): this {
    return this.op(0x88);
  }
  shrS64(): this {
    return this.op(0x87);
  }
  add32(): this {
    return this.op(0x6a);
  }
  gtU32(): this {
    return this.op(0x4b);
  }
  call(fn: number): this {
    this.op(0x10);
    uleb(this.code, fn);
    return this;
  }
  /** `if` with no result; pops an i32 condition. */
  if(): this {
    return this.op(0x04, 0x40);
  }
  end(): this {
    return this.op(0x0b);
  }

  /** Body bytes (size-prefixed) for the code section. */
  body(): number[] {
    const b: number[] = [];
    // Run-length encode local declarations.
    const groups: [number, ValType][] = [];
    for (const t of this.locals) {
      const last = groups[groups.length - 1];
      if (last !== undefined && last[1] === t) last[0]++;
      else groups.push([1, t]);
    }
    uleb(b, groups.length);
    for (const [n, t] of groups) {
      uleb(b, n);
      b.push(t);
    }
    for (const x of this.code) b.push(x);
    b.push(0x0b);
    const out: number[] = [];
    uleb(out, b.length);
    for (const x of b) out.push(x);
    return out;
  }
}

function section(out: number[], id: number, content: number[]): void {
  out.push(id);
  uleb(out, content.length);
  for (const x of content) out.push(x);
}

/** A module with one exported, internally defined memory and a list of functions. */
export class ModuleBuilder {
  private readonly fns: FnBuilder[] = [];
  private readonly exports: [string, number][] = [];

  constructor(private readonly memoryPages: number) {}

  /** Reserves a function index (bodies may call functions declared later). */
  fn(params: readonly ValType[], results: readonly ValType[] = []): { index: number; f: FnBuilder } {
    const f = new FnBuilder(params, results);
    this.fns.push(f);
    return { index: this.fns.length - 1, f };
  }

  export(exportName: string, fnIndex: number): void {
    this.exports.push([exportName, fnIndex]);
  }

  bytes(): Uint8Array {
    const out: number[] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
    // Types: one per distinct signature.
    const sigs: string[] = [];
    const typeOf: number[] = [];
    for (const f of this.fns) {
      const key = `${f.params.join(',')}>${f.results.join(',')}`;
      let i = sigs.indexOf(key);
      if (i < 0) {
        sigs.push(key);
        i = sigs.length - 1;
      }
      typeOf.push(i);
    }
    const types: number[] = [];
    uleb(types, sigs.length);
    for (const key of sigs) {
      const [ps, rs] = key.split('>') as [string, string];
      const p = ps === '' ? [] : ps.split(',').map(Number);
      const r = rs === '' ? [] : rs.split(',').map(Number);
      types.push(0x60);
      uleb(types, p.length);
      for (const x of p) types.push(x);
      uleb(types, r.length);
      for (const x of r) types.push(x);
    }
    section(out, 1, types);
    const funcs: number[] = [];
    uleb(funcs, typeOf.length);
    for (const t of typeOf) uleb(funcs, t);
    section(out, 3, funcs);
    const mem: number[] = [1, 0x00];
    uleb(mem, this.memoryPages);
    section(out, 5, mem);
    const ex: number[] = [];
    uleb(ex, this.exports.length + 1);
    name(ex, 'memory');
    ex.push(0x02, 0x00);
    for (const [n, i] of this.exports) {
      name(ex, n);
      ex.push(0x00);
      uleb(ex, i);
    }
    section(out, 7, ex);
    const code: number[] = [];
    uleb(code, this.fns.length);
    for (const f of this.fns) for (const x of f.body()) code.push(x);
    section(out, 10, code);
    return Uint8Array.from(out);
  }
}
