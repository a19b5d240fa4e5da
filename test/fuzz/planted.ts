/** A parser with a planted bug three conditions deep, for the engine's self-test (fuzz.test.ts): only coverage feedback reaches it in a few thousand runs. */
export function plantedParser(b: Uint8Array): void {
  if (b.length > 8) {
    if (b[5] === 0xff) {
      if (b[6] === 0x00) {
        if (b[7] === 0x80) throw new TypeError('planted: read past the end');
      }
    }
  }
}
