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
    if (typeof value === 'number' && value >= 0 && value <= 0x7fffffff && Number.isInteger(value)) {
      const { buf } = this;
      for (let i = 0; i < count; i++) buf[this.n++] = i < 31 ? (value >> i) & 1 : 0;
      return this;
    }
    let v = BigInt(value);
    if (v < 0n) v += 1n << BigInt(count); // two's complement for signed integers
    if (v < 0n) {
      for (let i = 0; i < count; i++, v >>= 1n) this.buf[this.n++] = Number(v & 1n);
      return this;
    }
    // From the hexadecimal digits, last first (one BigInt operation instead of 2·count).
    const hex = v.toString(16);
    const { buf } = this;
    const at = this.n;
    let i = 0;
    for (let k = hex.length - 1; k >= 0 && i < count; k--) {
      const c = hex.charCodeAt(k);
      const d = c <= 57 ? c - 48 : c - 87; // '0'-'9', 'a'-'f'
      for (let b = 0; b < 4 && i < count; b++, i++) buf[at + i] = (d >> b) & 1;
    }
    buf.fill(0, at + i, at + count);
    this.n = at + count;
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
