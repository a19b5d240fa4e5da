/**
 * The /ledger routes (README "Ledger"):
 *   GET /ledger/transactions/{id}  every oracle update of one transaction, fetched from the ledger
 *                                  node and verified now (same core and policy as /decodeReport);
 *   GET /ledger/status             how far the watcher got and the stored updates by outcome;
 *   GET /ledger/updates            stored update records, newest first by (blockHeight,
 *                                  transitionId), filtered, with keyset pagination (`cursor`);
 *   GET /ledger/consistency        the mapping cross-check: keys of the oracle data mapping whose
 *                                  value is inconsistent (or not checked) with the updates stored;
 *   GET /ledger/completeness       the last completeness check (docs/completeness.md): every key the
 *                                  oracle data mappings hold on chain explained by a stored write,
 *                                  or not (complete, incomplete, not_checked).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { traitsOf } from '../../errorCodes.js';
import { isVerifierError } from '../../errors.js';
import { LookupQueueFull, type LedgerRoutesOptions } from '../ledgerFeature.js';
import type { Cursor, MappingKeyRef, UpdateFilter } from '../../ledger/store/updateStore.js';
import { MAPPING_STATUSES, type MappingStatus } from '../../ledger/records/mappingVerdict.js';
import { plainFailureSchema } from '../errorResponses.js';
import { checksSchema, decodedDataSchema, decodedRequestsSchema, outcomeSchema } from '../schemas.js';
import { KINDS, REPORT_TYPES } from '../../verify/kinds/index.js';
import { RECORD_OUTCOMES, type RecordOutcome } from '../../ledger/records/updateRecord.js';
import { COMPLETENESS_STATUSES, type CompletenessResult } from '../../ledger/records/completeness.js';

const str = { type: 'string' } as const;
const count = { type: 'integer', minimum: 0 } as const;
const nullableHeight = { type: 'integer', minimum: 0, nullable: true } as const;

/** VerifyOutcome.asOf: what an update judged at its block's time was judged with. */
const judgedAsOfSchema = {
  type: 'object',
  description: "Judged as it stood at its block's timestamp: that time, and what the report kind judged it with (typeA: tcbEvaluation, tcbUpdate, and the collateral archive's keys of the TCB info, QE identity and CRLs), so the verdict can be re-run (docs/history.md)",
  required: ['time'],
  properties: {
    time: { type: 'string', format: 'date-time' },
    with: {
      type: 'object',
      properties: {
        tcbEvaluation: { type: 'integer', minimum: 0 },
        tcbUpdate: { type: 'string', enum: ['standard', 'early'] },
        collateral: { type: 'object', properties: { tcbInfo: str, qeIdentity: str, pckCrl: str, rootCaCrl: str } },
      },
    },
    today: {
      type: 'object',
      description: "How the report stands today, beside the verdict at its block's time (which stays the outcome): whether the policy accepts it on the newest evidence at hand, and the kind's account (typeA: the newest archived TCB evaluation, the status and advisories under it, the evaluation since which it rates so, revocations dated after the block)",
      required: ['accepted'],
      properties: {
        accepted: { type: 'boolean' },
        rejectedBy: { type: 'string', description: 'The code that refuses it today' },
        tcbEvaluation: { type: 'integer', minimum: 0 },
        tcbStatus: str,
        errorCode: { type: 'string', description: 'No TCB level of the newest evaluation matches: the check that fails' },
        advisoryIds: { type: 'array', items: str },
        sinceEvaluation: { type: 'integer', minimum: 0, description: 'The first evaluation of the run of equal ratings ending at tcbEvaluation' },
        changed: { type: 'boolean', description: 'Whether it rates otherwise than at the block\'s time' },
        missingEvaluations: { type: 'array', items: { type: 'integer' }, description: 'Evaluations in between that the archive lacks: the change may have come in one of them' },
        pckRevokedSince: { type: 'string', format: 'date-time' },
        pckCaRevokedSince: { type: 'string', format: 'date-time' },
        collateral: {
          type: 'array',
          description: 'The archive keys of the newer evaluations rated',
          items: { type: 'object', properties: { tcbEvaluation: { type: 'integer' }, tcbInfo: str, qeIdentity: str } },
        },
      },
    },
  },
} as const;

/** VerifyOutcome.evidence: what a verdict judged as of a time was reached on. */
const evidenceSchema = {
  type: 'object',
  description: "SHA-256 (hex) of the report's and the userData's bytes and of the policy (targets, accepted builds, statuses, advisories, debug rule), and the verifier's name/version: with judgedAsOf, what reproduces the verdict",
  required: ['report', 'userData', 'policy', 'verifier'],
  properties: { report: str, userData: str, policy: str, verifier: str },
} as const;

/** Inclusion: the proof that the update is committed in its block (watch.proveInclusion). */
const inclusionSchema = {
  type: 'object',
  description: "Whether the update is proven committed in its block (watch.proveInclusion, docs/inclusion.md): proven (the block hash reached and who confirmed it), failed (the link that broke, its code, what was found: the update is then not valid), not_checked (why no proof was tried); absent: not proven",
  required: ['status'],
  properties: {
    status: { type: 'string', enum: ['proven', 'failed', 'not_checked'] },
    blockHash: { type: 'string', description: 'proven: the block hash the proof reached (ab1…)' },
    confirmedBy: { type: 'string', description: 'proven: the API that named the same hash, or the node itself' },
    link: { type: 'string', description: 'failed: the link that broke (input id, transition id, transaction id, in block, transactions root, block hash; block: not served; confirmation)' },
    code: { type: 'string', description: 'failed: an INCLUSION_* code (docs/error-codes.md)' },
    detail: str,
    why: str,
  },
} as const;

export const ledgerRecordSchema = {
  type: 'object',
  description: 'One oracle update transition, verified',
  required: ['transactionId', 'transitionId', 'blockHeight', 'program', 'function', 'reportType', 'reportValid', 'outcome', 'measurements', 'verifiedAt'],
  properties: {
    transactionId: str,
    transitionId: str,
    blockHeight: { type: 'integer', minimum: 0 },
    blockTimestamp: { type: 'string', format: 'date-time', description: "The block's timestamp: present when the update was judged as it stood then (collateralArchive, docs/history.md)" },
    program: str,
    function: str,
    reportType: { type: 'string', description: 'typeA (SGX) or typeB (Nitro); the program\'s kind when the report could not be read' },
    reportValid: { type: 'boolean', description: 'true exactly when outcome is valid' },
    outcome: { type: 'string', enum: [...RECORD_OUTCOMES], description: `${outcomeSchema.description} unattested: a write of oracle data with no report (an owner or council overwrite), listed with what it wrote.` },
    unrecognized: { type: 'boolean', enum: [true], description: 'The transition is of a program or function the program registry does not name, but its inputs have the shape of an update: verified as one' },
    written: {
      type: 'object',
      description: 'What an unattested write wrote (Leo values as on the ledger)',
      required: ['mapping', 'key', 'value'],
      properties: { mapping: str, key: str, value: str },
    },
    errorCode: str,
    errorString: str,
    decodedData: decodedDataSchema,
    decodedRequests: decodedRequestsSchema,
    tcbStatus: str,
    measurements: {
      type: 'object',
      description: '{ uniqueId } (typeA) or { pcrs: [PCR0, PCR1, PCR2] } (typeB), hex; empty when the report could not be parsed',
      // Each kind's measurement under its ledger name (uniqueId, pcrs).
      properties: Object.fromEntries(KINDS.map((k) => [k.target.ledger.name, k.target.ledger.recordSchema])),
    },
    checks: checksSchema,
    judgedAsOf: judgedAsOfSchema,
    evidence: evidenceSchema,
    inclusion: inclusionSchema,
    mappingWrites: {
      type: 'array',
      description: 'What the transition writes into the oracle data mapping (mapping cross-check): per request its value under the request hash (latest) and the timestamped hash (historic); an unattested write its own key',
      items: mappingWriteSchema(),
    },
    verifiedAt: { type: 'string', format: 'date-time' },
  },
} as const;

function mappingWriteSchema() {
  return {
    type: 'object',
    required: ['program', 'mapping', 'key', 'role'],
    properties: {
      program: { type: 'string', description: 'The program holding the mapping' },
      mapping: str,
      key: { type: 'string', description: 'Leo u128 literal (123u128)' },
      role: { type: 'string', enum: ['latest', 'historic', 'unattested'] },
      data: { type: 'string', description: 'u128 decimal' },
      attestationTimestamp: { type: 'string', description: 'u128 decimal' },
      uncertain: { type: 'boolean', enum: [true], description: "The program's key scheme is not established from its sources" },
    },
  } as const;
}

const writeRefSchema = {
  type: 'object',
  required: ['transactionId', 'transitionId', 'blockHeight', 'program', 'function', 'outcome', 'role'],
  properties: {
    transactionId: str,
    transitionId: str,
    blockHeight: { type: 'integer', minimum: 0 },
    program: str,
    function: str,
    outcome: { type: 'string', enum: [...RECORD_OUTCOMES] },
    role: { type: 'string', enum: ['latest', 'historic', 'unattested'] },
    data: str,
    attestationTimestamp: str,
  },
} as const;

export const mappingCheckSchema = {
  type: 'object',
  description: 'The mapping cross-check of one key',
  required: ['program', 'mapping', 'key', 'role', 'status', 'checkedAt', 'checkedHeight'],
  properties: {
    program: { type: 'string', description: 'The program holding the mapping' },
    mapping: str,
    key: { type: 'string', description: 'Leo u128 literal' },
    role: { type: 'string', enum: ['latest', 'historic', 'unattested'], description: 'latest: a request hash; historic: a timestamped request hash; unattested: only unattested writes of it were seen' },
    status: { type: 'string', enum: [...MAPPING_STATUSES] },
    reason: str,
    value: {
      type: 'object',
      nullable: true,
      description: 'What the mapping held (null: the key is absent); missing when it was not read',
      required: ['data', 'attestationTimestamp'],
      properties: { data: str, attestationTimestamp: str },
    },
    errorCode: { type: 'string', description: 'Why the value was not read (the ledger node)' },
    expected: { ...writeRefSchema, description: 'The valid attested update whose value the key must hold' },
    setBy: { ...writeRefSchema, description: 'The last write whose value the key holds' },
    lastWrite: { ...writeRefSchema, description: 'The last write of the key' },
    likelyOverwrite: { ...writeRefSchema, description: 'An unattested write of the key that likely changed it' },
    checkedAt: { type: 'string', format: 'date-time' },
    checkedHeight: { type: 'integer', minimum: 0, description: 'Every block up to this height was scanned when the key was checked' },
  },
} as const;

const height = { type: 'integer', minimum: 0 } as const;
const foundWriteSchema = {
  type: 'object',
  required: ['role'],
  properties: {
    transactionId: str,
    transitionId: str,
    blockHeight: height,
    program: str,
    function: str,
    role: { type: 'string', enum: ['latest', 'historic', 'unattested'] },
    afterScan: { type: 'boolean', enum: [true], description: 'The block is after the scanned height: the scan had not reached it yet' },
  },
} as const;

export const completenessSchema = {
  type: 'object',
  description: 'The last completeness check: every key of the oracle data mappings on chain against the stored writes',
  required: ['status', 'checkedAt', 'scannedHeight', 'mappings', 'keys', 'explained', 'explainedByUnattested', 'explainedByValue', 'afterScan', 'unexplainedCount', 'missingCount', 'unexplained', 'missing'],
  properties: {
    status: { type: 'string', enum: [...COMPLETENESS_STATUSES], description: 'complete: every listed key explained, none missing; incomplete: see unexplained and missing; not_checked: see reason' },
    reason: str,
    errorCode: str,
    checkedAt: { type: 'string', format: 'date-time' },
    scannedHeight: { ...nullableHeight, description: 'Every block up to this height was scanned into the store the keys were checked against' },
    source: { type: 'string', enum: ['snarkos'], description: "Where the mappings were listed: the node's JWT route" },
    mappings: {
      type: 'array',
      items: {
        type: 'object',
        required: ['program', 'mapping', 'keys'],
        properties: {
          program: str,
          mapping: str,
          keys: count,
          height: { ...height, description: "The node's height when it listed the mapping" },
          uninitialized: { type: 'boolean', enum: [true], description: 'The node says the mapping is not initialized: its program is not deployed on this network' },
        },
      },
    },
    keys: { ...count, description: 'Keys listed' },
    explained: { ...count, description: 'Listed keys whose value a stored write wrote' },
    explainedByUnattested: { ...count, description: 'Of those: by an unattested write (an owner or council overwrite)' },
    explainedByValue: { ...count, description: "Of those: by the value alone (the program's key scheme is not established)" },
    afterScan: { ...count, description: 'Keys written after the scanned height, found by the rescan (not counted as unexplained)' },
    unexplainedCount: { ...count, description: 'Keys on chain no stored write explains' },
    missingCount: { ...count, description: 'Stored keys the chain lacks (a deleted write)' },
    unexplained: {
      type: 'array',
      description: 'The unexplained keys (at most 1000), each with its value, its block window and what the rescan of that window found',
      items: {
        type: 'object',
        required: ['program', 'mapping', 'key', 'value', 'reason'],
        properties: {
          program: str,
          mapping: str,
          key: str,
          value: { type: 'string', description: 'The value as listed (Leo text)' },
          data: str,
          attestationTimestamp: str,
          reason: str,
          window: {
            type: 'object',
            required: ['fromHeight', 'toHeight', 'fromTimestamp', 'toTimestamp'],
            properties: { fromHeight: height, toHeight: height, fromTimestamp: { type: 'number' }, toTimestamp: { type: 'number' } },
          },
          rescan: {
            type: 'object',
            required: ['status'],
            properties: { status: { type: 'string', enum: ['found', 'not_found', 'failed', 'not_scanned'] }, found: { type: 'array', items: foundWriteSchema }, reason: str, errorCode: str },
          },
        },
      },
    },
    missing: {
      type: 'array',
      description: 'Stored keys the chain lacks (at most 1000), with the write the chain should hold',
      items: { type: 'object', required: ['program', 'mapping', 'key', 'lastWrite'], properties: { program: str, mapping: str, key: str, lastWrite: writeRefSchema } },
    },
  },
} as const;

/** Cursor of GET /ledger/consistency: base64url of [program, mapping, key] of the last key served. */
export function encodeKeyCursor(k: MappingKeyRef): string {
  return Buffer.from(JSON.stringify([k.program, k.mapping, k.key])).toString('base64url');
}

export function decodeKeyCursor(s: string): MappingKeyRef | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === 'string' && x.length <= 256)) return { program: v[0] as string, mapping: v[1] as string, key: v[2] as string };
  } catch {
    /* not ours */
  }
  return undefined;
}

const failure = (description: string) => ({ description, ...plainFailureSchema });
/** The answers every route over the store shares: no watcher configured; a bad page query. */
const watchNotConfigured = () => failure('The watcher is not configured (LEDGER_WATCH_NOT_CONFIGURED), or the server is shutting down');
const badPageQuery = () => failure('A query parameter is invalid (LEDGER_BAD_REQUEST) or the cursor is not one this server handed out (LEDGER_BAD_CURSOR)');
const MAX_LIMIT = 500;
const DEFAULT_LIMIT = 50;

/**
 * A list route's `limit` (1…MAX_LIMIT, default DEFAULT_LIMIT) and `cursor` (one `decode` accepts:
 * a nextCursor this route handed out); undefined after answering 400 for either.
 */
function pageOf<C>(q: { limit?: string; cursor?: string }, reply: FastifyReply, decode: (s: string) => C | undefined, route: string): { limit: number; after: C | undefined } | undefined {
  const limit = q.limit === undefined ? DEFAULT_LIMIT : Number(q.limit);
  if (limit < 1 || limit > MAX_LIMIT) {
    void reply.code(400).send({ errorCode: 'LEDGER_BAD_REQUEST', errorString: `invalid querystring: limit must be 1…${MAX_LIMIT}, got ${q.limit}` });
    return undefined;
  }
  if (q.cursor === undefined) return { limit, after: undefined };
  const after = decode(q.cursor);
  if (after === undefined) {
    void reply.code(400).send({ errorCode: 'LEDGER_BAD_CURSOR', errorString: `cursor is not a nextCursor of ${route}` });
    return undefined;
  }
  return { limit, after };
}

/** Cursor of the next page: base64url of [blockHeight, transitionId] of the last record served. */
export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.blockHeight, c.transitionId])).toString('base64url');
}

export function decodeCursor(s: string): Cursor | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[0]) && v[0] >= 0 && typeof v[1] === 'string' && v[1].length <= 256) return { blockHeight: v[0] as number, transitionId: v[1] };
  } catch {
    /* not ours */
  }
  return undefined;
}

function badRequest(req: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  const v = req.validationError;
  if (!v) return undefined;
  return reply.code(400).send({ errorCode: 'LEDGER_BAD_REQUEST', errorString: `invalid ${v.validationContext ?? 'request'}: ${v.message}` });
}

const notConfigured = (reply: FastifyReply, code: 'LEDGER_WATCH_NOT_CONFIGURED' | 'LEDGER_NODE_NOT_CONFIGURED') =>
  reply.code(503).send({
    errorCode: code,
    errorString: code === 'LEDGER_WATCH_NOT_CONFIGURED' ? 'the ledger watcher is not configured (config key watch with enabled: true)' : 'no ledger node is configured (config key liveCheck.apiBaseUrl)',
  });

/** The answer before the first completeness check. */
function notYet(scannedHeight: number | null): CompletenessResult {
  return {
    status: 'not_checked',
    reason: 'not run yet: the watcher first checks completeness when its scan reaches the tip',
    checkedAt: new Date().toISOString(),
    scannedHeight,
    mappings: [],
    keys: 0,
    explained: 0,
    explainedByUnattested: 0,
    explainedByValue: 0,
    afterScan: 0,
    unexplainedCount: 0,
    missingCount: 0,
    unexplained: [],
    missing: [],
  };
}

export const ledgerRoutes = (o: LedgerRoutesOptions): FastifyPluginAsync => async (app) => {
  /**
   * A paged listing over the store: its query valid, the store configured, its page (pageOf);
   * undefined after answering 400 or 503.
   */
  const storePage = <C>(req: FastifyRequest<{ Querystring: { limit?: string; cursor?: string } }>, reply: FastifyReply, decode: (s: string) => C | undefined, route: string) => {
    if (badRequest(req, reply)) return undefined;
    if (!o.store) {
      void notConfigured(reply, 'LEDGER_WATCH_NOT_CONFIGURED');
      return undefined;
    }
    const paging = pageOf(req.query, reply, decode, route);
    return paging && { store: o.store, ...paging };
  };
  app.get<{ Params: { id: string } }>(
    '/ledger/transactions/:id',
    {
      attachValidation: true,
      schema: {
        summary: 'Fetch a transaction from the ledger node and verify every oracle update in it',
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^at1[02-9ac-hj-np-z]{58}$', description: 'Transaction id (at1…)' } } },
        response: {
          200: {
            type: 'object',
            required: ['transactionId', 'blockHeight', 'updates'],
            properties: { transactionId: str, blockHeight: { type: 'integer', minimum: 0 }, updates: { type: 'array', items: ledgerRecordSchema } },
          },
          400: failure('The id is not a transaction id (LEDGER_BAD_REQUEST)'),
          404: failure('The ledger node does not know the transaction (LEDGER_TX_NOT_FOUND)'),
          502: failure('The ledger node is unreachable, timed out, rate limited or answered garbage (LEDGER_NODE_UNREACHABLE, LEDGER_NODE_TIMEOUT, LEDGER_NODE_RATE_LIMITED, LEDGER_NODE_HTTP_ERROR, LEDGER_NODE_BAD_RESPONSE, LEDGER_NODE_BAD_TRANSACTION)'),
          503: failure(
            'No ledger node configured (LEDGER_NODE_NOT_CONFIGURED), ledgerLookupQueue lookups already wait for the ledger node (LEDGER_LOOKUP_QUEUE_FULL; Retry-After: the seconds the node\'s rate takes to serve them), the ledger node\'s answers being read hold the process\'s budget for them (LEDGER_NODE_BODY_BUDGET; Retry-After: 1), the verification pool is full, timed out or closed (POOL_OVERLOADED, POOL_TASK_TIMEOUT, POOL_CLOSED; Retry-After: 1), or the server is shutting down',
          ),
        },
      },
    },
    async (req, reply) => {
      if (badRequest(req, reply)) return reply;
      if (!o.lookup) return notConfigured(reply, 'LEDGER_NODE_NOT_CONFIGURED');
      try {
        return await o.lookup(req.params.id);
      } catch (e) {
        if (!isVerifierError(e)) throw e;
        if (e instanceof LookupQueueFull) return reply.code(503).header('retry-after', String(e.retryAfterSeconds)).send({ errorCode: e.code, errorString: e.message });
        // What the ledger node answered (404: no such transaction; 502: node down or wrong); the rest
        // (the pool's refusals, internal errors) goes to the app's error handler.
        const { status } = traitsOf(e.code);
        if (status === 404 || status === 502) return reply.code(status).send({ errorCode: e.code, errorString: e.message });
        throw e;
      }
    },
  );

  app.get(
    '/ledger/status',
    {
      schema: {
        summary: 'How far the ledger watcher got, and the stored updates by outcome',
        response: {
          200: {
            type: 'object',
            required: ['scannedHeight', 'tipHeight', 'lagBlocks', 'updates', 'unrecognized', 'mapping', 'watcher'],
            properties: {
              scannedHeight: { ...nullableHeight, description: 'Every block up to this height is scanned and its updates stored (null: none yet)' },
              tipHeight: { ...nullableHeight, description: 'Latest height the ledger node reported' },
              lagBlocks: { ...nullableHeight, description: 'tipHeight − scannedHeight' },
              updates: { type: 'object', required: [...RECORD_OUTCOMES], properties: Object.fromEntries(RECORD_OUTCOMES.map((o) => [o, count])) },
              unrecognized: {
                ...count,
                description: 'Stored updates, of any outcome above, from transitions the program registry does not name (an unknown program or function shaped like an update); GET /ledger/updates?unrecognized=true lists them',
              },
              mapping: {
                type: 'object',
                description: 'Mapping cross-check: keys of the oracle data mapping written by stored transitions, by the status of their last check (GET /ledger/consistency lists them)',
                required: ['keys', 'consistent', 'inconsistent', 'notChecked'],
                properties: {
                  keys: count,
                  consistent: count,
                  inconsistent: count,
                  notChecked: { ...count, description: 'Not checked yet, undecidable (see the reasons), the node did not answer, or written again since the check' },
                },
              },
              watcher: {
                type: 'object',
                required: ['running'],
                properties: {
                  running: { type: 'boolean' },
                  blockSource: { type: 'string', enum: ['/blocks/transactions', '/blocks'], description: 'The route blocks are read from (config watch.blockSource; auto: /blocks/transactions when the node serves it); absent until detected' },
                  lastError: { type: 'object', properties: { errorCode: str, errorString: str, at: str } },
                  waitingForLease: {
                    type: 'object',
                    description: "Not started yet: another watcher holds the store's lease; this one starts once it is given up, expires, or its process no longer runs",
                    required: ['holder', 'expiresAt'],
                    properties: { holder: str, expiresAt: { type: 'string', format: 'date-time' } },
                  },
                },
              },
            },
          },
          503: watchNotConfigured(),
        },
      },
    },
    async (_req, reply) => {
      if (!o.store) return notConfigured(reply, 'LEDGER_WATCH_NOT_CONFIGURED');
      const { scannedHeight, tipHeight } = o.store.state();
      const lagBlocks = tipHeight === null ? null : Math.max(0, tipHeight - (scannedHeight ?? -1));
      return { scannedHeight, tipHeight, lagBlocks, updates: o.store.counts(), unrecognized: o.store.unrecognizedCount(), mapping: o.store.mappingCounts(), watcher: o.watcherStatus?.() ?? { running: false } };
    },
  );

  const heightParam = { type: 'string', pattern: '^[0-9]{1,15}$' } as const;
  app.get<{ Querystring: { valid?: 'true' | 'false'; outcome?: RecordOutcome; unrecognized?: 'true' | 'false'; kind?: string; fromHeight?: string; toHeight?: string; limit?: string; cursor?: string } }>(
    '/ledger/updates',
    {
      attachValidation: true,
      schema: {
        summary: 'Stored update records, newest first by (blockHeight, transitionId)',
        description: `Order: blockHeight descending, then transitionId descending. Pass nextCursor back as cursor for the next page; pages stay stable while new updates are stored. limit 1–${MAX_LIMIT} (default ${DEFAULT_LIMIT}).`,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            valid: { type: 'string', enum: ['true', 'false'], description: 'true: valid reports only; false: invalid and unverifiable ones' },
            outcome: { type: 'string', enum: [...RECORD_OUTCOMES], description: 'Only updates of this outcome: valid, invalid (a check failed on the evidence), unverifiable (could not be decided; verified again later) or unattested (writes with no report)' },
            unrecognized: { type: 'string', enum: ['true', 'false'], description: 'Only updates from transitions the program registry does not name (true), or only the others (false)' },
            kind: { type: 'string', enum: [...REPORT_TYPES] },
            fromHeight: { ...heightParam, description: 'Lowest block height (inclusive)' },
            toHeight: { ...heightParam, description: 'Highest block height (inclusive)' },
            limit: { type: 'string', pattern: '^[0-9]{1,4}$' },
            cursor: { type: 'string', maxLength: 512 },
          },
        },
        response: {
          200: { type: 'object', required: ['updates'], properties: { updates: { type: 'array', items: ledgerRecordSchema }, nextCursor: str } },
          400: badPageQuery(),
          503: watchNotConfigured(),
        },
      },
    },
    async (req, reply) => {
      const paging = storePage(req, reply, decodeCursor, 'GET /ledger/updates');
      if (!paging) return reply;
      const { store, limit, after } = paging;
      const q = req.query;
      const filter: UpdateFilter = {
        ...(q.valid !== undefined ? { valid: q.valid === 'true' } : {}),
        ...(q.outcome !== undefined ? { outcome: q.outcome } : {}),
        ...(q.unrecognized !== undefined ? { unrecognized: q.unrecognized === 'true' } : {}),
        ...(q.kind !== undefined ? { kind: q.kind } : {}),
        ...(q.fromHeight !== undefined ? { fromHeight: Number(q.fromHeight) } : {}),
        ...(q.toHeight !== undefined ? { toHeight: Number(q.toHeight) } : {}),
      };
      const page = store.list(filter, limit, after);
      return { updates: page.records, ...(page.next ? { nextCursor: encodeCursor(page.next) } : {}) };
    },
  );

  app.get<{ Querystring: { status?: MappingStatus; limit?: string; cursor?: string } }>(
    '/ledger/consistency',
    {
      attachValidation: true,
      schema: {
        summary: 'The mapping cross-check: keys of the oracle data mapping whose value is inconsistent with the stored updates',
        description: `Each key checked with the value the ledger node gave, the valid update it must hold (expected), the write whose value it holds (setBy), its last write and, if the value is no write's, the unattested write that likely changed it. status: inconsistent (default), not_checked (with the reason) or consistent. Order: program, mapping, key; pass nextCursor back as cursor. limit 1–${MAX_LIMIT} (default ${DEFAULT_LIMIT}).`,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            status: { type: 'string', enum: [...MAPPING_STATUSES] },
            limit: { type: 'string', pattern: '^[0-9]{1,4}$' },
            cursor: { type: 'string', maxLength: 1024 },
          },
        },
        response: {
          200: {
            type: 'object',
            required: ['counts', 'keys'],
            properties: {
              counts: { type: 'object', required: ['keys', 'consistent', 'inconsistent', 'notChecked'], properties: { keys: count, consistent: count, inconsistent: count, notChecked: count } },
              keys: { type: 'array', items: mappingCheckSchema },
              nextCursor: str,
            },
          },
          400: badPageQuery(),
          503: watchNotConfigured(),
        },
      },
    },
    async (req, reply) => {
      const paging = storePage(req, reply, decodeKeyCursor, 'GET /ledger/consistency');
      if (!paging) return reply;
      const { store, limit, after } = paging;
      const page = store.listMappingChecks(req.query.status ?? 'inconsistent', limit, after);
      return { counts: store.mappingCounts(), keys: page.checks, ...(page.next ? { nextCursor: encodeKeyCursor(page.next) } : {}) };
    },
  );

  app.get(
    '/ledger/completeness',
    {
      schema: {
        summary: 'The last completeness check: is every key of the oracle data mappings on chain explained by a stored write?',
        description:
          'The watcher runs it when its scan first reaches the tip, then at the tip every watch.completenessIntervalMs and after new records were stored (docs/completeness.md); each result replaces the last. It lists the oracle data mappings from the ledger node (its JWT route; LEDGER_NODE_JWT), explains each key by the last stored write of it (an update or a flagged unattested write) when that wrote the listed value, places each unexplained key in a block window by its attestation timestamp and scans that window again. status: complete, incomplete (unexplained keys with their windows and what the rescan found; stored keys missing on chain) or not_checked (reason: no JWT, listing refused, no mapping of the followed programs on the node, node down, or not run yet).',
        response: { 200: completenessSchema, 503: watchNotConfigured() },
      },
    },
    async (_req, reply) => {
      if (!o.store) return notConfigured(reply, 'LEDGER_WATCH_NOT_CONFIGURED');
      return o.store.completeness() ?? notYet(o.store.state().scannedHeight);
    },
  );
};
