import { describe, expect, it } from 'vitest';
import { BufferPool } from '../../../src/upstream/body.js';

/** The pool of body buffers (src/upstream/body.ts): a scan's ranges differ in size by some percent. */
describe('BufferPool', () => {
  it('a new buffer has room for a body an eighth larger, which then reuses it', () => {
    const pool = new BufferPool(1000);
    const first = pool.take(400);
    expect(first.length).toBe(450);
    pool.give(first);
    expect(pool.take(440)).toBe(first);
  });

  it('keeps the largest buffers under its bound: a larger one given back replaces smaller ones', () => {
    const pool = new BufferPool(100);
    const small = Buffer.alloc(60);
    const large = Buffer.alloc(70);
    pool.give(small);
    pool.give(large);
    expect(pool.take(65)).toBe(large);
    // the small one was dropped for it: a body it would have served gets a new buffer
    expect(pool.take(55)).not.toBe(small);
    // a buffer that cannot fit even alone is not kept, nor are the kept ones dropped for it
    pool.give(large);
    pool.give(Buffer.alloc(101));
    expect(pool.take(70)).toBe(large);
  });
});
