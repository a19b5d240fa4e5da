/**
 * Inclusion proofs of the update records of a scan (reverify --prove-inclusion): for each update
 * read from a block, the block as the node serves it (`GET /{network}/block/{h}`, read with its
 * u128s exact), the proof of src/aleo/inclusion/prove.ts, and the confirmation of the block hash:
 * by a second source (`confirm`: another API's block at that height), else by the node itself
 * (one's own node). Blocks are asked once for all the updates they hold (the last few are kept;
 * a block whose proof failed is asked again, so a retry meets the node's answer of then).
 */
import { encodeBech32m, bigIntToLeBytes } from '../../aleo/bech32m.js';
import { parseBlockJson } from '../../aleo/block/losslessJson.js';
import { confirmBlockHash } from '../../aleo/inclusion/confirm.js';
import { proveInclusion } from '../../aleo/inclusion/prove.js';
import type { Inclusion } from '../../aleo/inclusion/verdict.js';
import { isVerifierError } from '../../errors.js';
import type { LedgerNodeClient } from '../node/client.js';
import { isOwnerRecord, type OutputRecord } from '../records/updateRecord.js';
import { withInclusion } from './record.js';

export interface InclusionSources {
  /** The node the scan read (the block of each update is read from it again, whole). */
  node: Pick<LedgerNodeClient, 'getBytes' | 'baseUrl'>;
  /** An independent API that must name the same block hash; absent: the node's own hash is taken (an auditor's own node). */
  confirmWith?: Pick<LedgerNodeClient, 'getBytes' | 'baseUrl'>;
}

const KEPT_BLOCKS = 8;

type Read = { ok: true; block: unknown } | { ok: false; why: string };

class BlockCache {
  private readonly kept = new Map<number, Promise<Read>>();
  constructor(private readonly client: Pick<LedgerNodeClient, 'getBytes'>) {}
  get(height: number): Promise<Read> {
    let p = this.kept.get(height);
    if (p === undefined) {
      p = this.client.getBytes(`/block/${height}`).then(
        (body): Read => {
          try {
            return { ok: true, block: parseBlockJson(body.toString('utf8')) };
          } catch (e) {
            return { ok: false, why: `block ${height} is not JSON (${(e as Error).message})` };
          }
        },
        (e: unknown): Read => ({ ok: false, why: isVerifierError(e) ? `${e.code}: ${e.message}` : String(e) }),
      );
      this.kept.set(height, p);
      if (this.kept.size > KEPT_BLOCKS) this.kept.delete(this.kept.keys().next().value as number);
    }
    return p;
  }
  /** Reads block `height` again next time (its proof failed: a retry must not meet the same answer). */
  forget(height: number): void {
    this.kept.delete(height);
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class InclusionProver {
  private readonly blocks: BlockCache;
  private readonly confirmations: BlockCache | undefined;

  constructor(private readonly sources: InclusionSources) {
    this.blocks = new BlockCache(sources.node);
    this.confirmations = sources.confirmWith ? new BlockCache(sources.confirmWith) : undefined;
  }

  /** The proof of one update record (owner records and unattested writes carry none); a block whose proof failed is not kept. */
  async prove(r: OutputRecord): Promise<Inclusion | undefined> {
    const inclusion = await this.proveOnce(r);
    if (inclusion?.status === 'failed' && r.blockHeight !== undefined) {
      this.blocks.forget(r.blockHeight);
      this.confirmations?.forget(r.blockHeight);
    }
    return inclusion;
  }

  private async proveOnce(r: OutputRecord): Promise<Inclusion | undefined> {
    if (isOwnerRecord(r) || r.kind === 'unattested') return undefined;
    const { blockHeight: height, transactionId, transitionId } = r;
    if (height === undefined || transactionId === undefined || transitionId === undefined) return { status: 'not_checked', why: 'the record names no block, transaction and transition (a JSONL input)' };
    const read = await this.blocks.get(height);
    if (!read.ok) return { status: 'failed', link: 'block', code: 'INCLUSION_HEADER_MISSING', detail: `${this.sources.node.baseUrl}: ${read.why}` };
    const txs = isObj(read.block) && Array.isArray(read.block.transactions) ? read.block.transactions : [];
    const confirmed = txs.find((c) => isObj(c) && isObj(c.transaction) && c.transaction.id === transactionId);
    if (confirmed === undefined) return { status: 'failed', link: 'in block', code: 'INCLUSION_NOT_IN_BLOCK', detail: `block ${height} as ${this.sources.node.baseUrl} serves it holds no transaction ${transactionId}` };
    const proof = proveInclusion(read.block, confirmed, transitionId);
    if (proof.status === 'failed') {
      return proof.code === 'INCLUSION_UNSUPPORTED' ? { status: 'not_checked', why: proof.detail } : { status: 'failed', link: proof.link, code: proof.code, detail: proof.detail };
    }
    const blockHash = encodeBech32m('ab', bigIntToLeBytes(proof.blockHash, 32));
    if (this.confirmations === undefined) return { status: 'proven', blockHash, confirmedBy: `${this.sources.node.baseUrl} (the node read)` };
    const other = await this.confirmations.get(height);
    const by = this.sources.confirmWith!.baseUrl;
    if (!other.ok) return { status: 'failed', link: 'confirmation', code: 'INCLUSION_CONFIRMATION_UNAVAILABLE', detail: `${by} did not serve block ${height}: ${other.why}` };
    const c = confirmBlockHash(proof.blockHash, proof.height, other.block, by);
    return c.status === 'confirmed' ? { status: 'proven', blockHash, confirmedBy: by } : { status: 'failed', link: 'confirmation', code: c.code, detail: c.detail };
  }

  /** The records with their proofs, in order. */
  async annotate(records: readonly OutputRecord[]): Promise<OutputRecord[]> {
    return Promise.all(
      records.map(async (r) => {
        const inclusion = await this.prove(r);
        return inclusion === undefined ? r : withInclusion(r, inclusion);
      }),
    );
  }
}
