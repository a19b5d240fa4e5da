/** Little-endian bit strings as BHP takes them: one byte (0 or 1) per bit. */
export class BitString {
  private buf = new Uint8Array(1024);
  private n = 0;

  get length(): number {
    return this.n;
  }

  private room(extra: number): void {
    if (this.n + extra <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.n + extra));
    next.set(this.buf.subarray(0, this.n));
    this.buf = next;
  }

  /** The low `count` bits of a non-negative integer, least significant first. */
  int(value: bigint | number, count: number): this {
    this.room(count);
    let v = BigInt(value);
    if (v < 0n) v += 1n << BigInt(count); // two's complement for signed integers
    for (let i = 0; i < count; i++, v >>= 1n) this.buf[this.n++] = Number(v & 1n);
    return this;
  }

  bool(b: boolean): this {
    this.room(1);
    this.buf[this.n++] = b ? 1 : 0;
    return this;
  }

  /** A field element: 253 bits. */
  field(x: bigint): this {
    return this.int(x, 253);
  }

  /** Each byte's 8 bits, least significant first. */
  bytes(b: Uint8Array): this {
    for (const byte of b) this.int(byte, 8);
    return this;
  }

  bits(other: Uint8Array): this {
    this.room(other.length);
    this.buf.set(other, this.n);
    this.n += other.length;
    return this;
  }

  toArray(): Uint8Array {
    return this.buf.slice(0, this.n);
  }
}
