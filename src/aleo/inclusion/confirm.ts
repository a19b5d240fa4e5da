/**
 * The last link of an inclusion proof: the block hash the proof reached is the chain's, as a
 * source other than the one the block was read from says (`GET /{network}/block/{h}` of a second
 * API, its `block_hash`). A proof whose hash another source does not confirm is not proven.
 */
import { bech32Id, BlockJsonError, jsonObject } from '../block/blockJson.js';
import type { InclusionCode } from './errors.js';

export type Confirmation =
  | { readonly status: 'confirmed'; readonly by: string }
  | { readonly status: 'failed'; readonly code: InclusionCode; readonly detail: string };

/** Compares the proven hash with the block JSON a second source served for that height. */
export function confirmBlockHash(proven: bigint, height: bigint, served: unknown, source: string): Confirmation {
  let theirs: bigint;
  try {
    const b = jsonObject(served, `${source} block ${height}`);
    theirs = bech32Id(b.block_hash, 'ab', `${source} block ${height}: block_hash`);
    const h = jsonObject(jsonObject(b.header, 'header').metadata, 'header.metadata').height;
    if (String(h) !== String(height)) return { status: 'failed', code: 'INCLUSION_SOURCES_DISAGREE', detail: `${source} answered block ${String(h)} when asked for ${height}` };
  } catch (e) {
    if (e instanceof BlockJsonError) return { status: 'failed', code: 'INCLUSION_SOURCES_DISAGREE', detail: `${source} served no readable block ${height}: ${e.message}` };
    throw e;
  }
  if (theirs !== proven) return { status: 'failed', code: 'INCLUSION_SOURCES_DISAGREE', detail: `${source} names another hash for block ${height}` };
  return { status: 'confirmed', by: source };
}
