/**
 * The messages of requests that could not be read say what is wrong once: a body that is not
 * JSON is "request body is not valid JSON", not that sentence followed by Fastify's own
 * ("Body is not valid JSON but content-type is set to 'application/json'").
 */
import { errorCodes, type FastifyError } from 'fastify';
import { describe, expect, it } from 'vitest';
import { classifyHttpError } from '../../../src/server/httpErrors.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openUpdateStore } from '../../../src/ledger/store/updateStore.js';
import { VerifierError } from '../../../src/errors.js';

describe('classifyHttpError: invalid JSON', () => {
  it("Fastify's parser error: one sentence, 400 HTTP_INVALID_JSON", () => {
    const f = classifyHttpError(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY() as FastifyError);
    expect(f).toEqual({ status: 400, code: 'HTTP_INVALID_JSON', message: 'request body is not valid JSON' });
  });

  it('a SyntaxError: its detail only when it says more than "not valid JSON"', () => {
    let v8: SyntaxError | undefined;
    try {
      JSON.parse('{"x": ');
    } catch (e) {
      v8 = e as SyntaxError;
    }
    const plain = classifyHttpError(v8 as unknown as FastifyError);
    expect(plain.code).toBe('HTTP_INVALID_JSON');
    expect(plain.message.match(/not valid JSON/g)).toHaveLength(1);
    expect(classifyHttpError(new SyntaxError('Unexpected token \'x\', "x" is not valid JSON') as unknown as FastifyError).message).toBe('request body is not valid JSON');
    expect(classifyHttpError(new SyntaxError('Unexpected end of JSON input') as unknown as FastifyError).message).toBe('request body is not valid JSON: Unexpected end of JSON input');
  });
});

describe('classifyHttpError: the ledger store failing under a route', () => {
  it("answers the store's code (STORE_READ_FAILED), not INTERNAL_ERROR, and keeps the file's path out of the answer", () => {
    const dir = mkdtempSync(join(tmpdir(), 'http-errors-store-'));
    try {
      const file = join(dir, 'secret-path-ledger.db');
      const store = openUpdateStore(file);
      store.close();
      let thrown: unknown;
      try {
        store.list({}, 10);
      } catch (e) {
        thrown = e;
      }
      expect((thrown as { code?: string }).code).toBe('STORE_READ_FAILED');
      expect((thrown as Error).message).toContain(file);
      const f = classifyHttpError(thrown as FastifyError);
      expect([f.status, f.code]).toEqual([500, 'STORE_READ_FAILED']);
      expect(f.message).toBe('the ledger store failed; the server log names the file and the cause');
      expect(f.message).not.toContain('secret-path');
      // With SQLite's code in the cause, the answer names it.
      const sqliteError = Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
      const corrupt = new VerifierError('STORE_READ_FAILED', `store: reading ${file} failed: SQLITE_CORRUPT: database disk image is malformed`, { cause: sqliteError });
      expect(classifyHttpError(corrupt as unknown as FastifyError).message).toBe('the ledger store failed (SQLITE_CORRUPT); the server log names the file and the cause');
      // A code only in the message (a path can hold any text) is not taken for SQLite's.
      const pathOnly = new VerifierError('STORE_READ_FAILED', 'store: reading /data/failed: SQLITE_FULL/ledger.db failed: disk I/O error');
      expect(classifyHttpError(pathOnly as unknown as FastifyError).message).toBe('the ledger store failed; the server log names the file and the cause');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
