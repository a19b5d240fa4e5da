/**
 * The messages of requests that could not be read say what is wrong once: a body that is not
 * JSON is "request body is not valid JSON", not that sentence followed by Fastify's own
 * ("Body is not valid JSON but content-type is set to 'application/json'").
 */
import { errorCodes, type FastifyError } from 'fastify';
import { describe, expect, it } from 'vitest';
import { classifyHttpError } from '../../src/server/httpErrors.js';

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
