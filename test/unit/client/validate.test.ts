import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DEFAULT_CLIENT_HEADERS,
  NEVER_MASKED_HEADERS,
  RequestValidationError,
  isNeverMasked,
  isPlausibleXPath,
  isValidJsonKeyPath,
  maskHeaders,
  mergeRequestHeaders,
  parseNotarizerInfo,
  truncateFloat,
  validateAttestationRequest,
} from '../../../src/client/index.js';
import { formatPcrStruct, formatProductId, formatUniqueId } from '../../../src/aleo/ids.js';

const base = {
  url: 'api.example.com/v1/price?x=1',
  requestMethod: 'GET',
  selector: 'data.[0].price',
  responseFormat: 'json',
  encodingOptions: { value: 'float', precision: 4 },
};

function failure(req: unknown, opts = {}): { code: string; errorCode: number | undefined; field: string } {
  try {
    validateAttestationRequest(req, opts);
  } catch (e) {
    if (e instanceof RequestValidationError) return { code: e.code, errorCode: e.errorCode, field: e.field };
    throw e;
  }
  return { code: 'none', errorCode: undefined, field: '' };
}

describe('validateAttestationRequest', () => {
  it('accepts valid json, html and POST requests', () => {
    expect(validateAttestationRequest(base)).toBe(base);
    validateAttestationRequest({ ...base, selector: undefined, encodingOptions: { value: 'string' } });
    validateAttestationRequest({ ...base, responseFormat: 'html', htmlResultType: 'value', selector: "//div[@id='p']/span[1]/text()" });
    validateAttestationRequest({ ...base, requestMethod: 'POST', requestBody: '{"a":1}', requestContentType: 'application/json' });
    validateAttestationRequest(base, { whitelist: ['API.Example.com'] });
  });

  it.each([
    [{ ...base, url: '' }, 'URL_REQUIRED', 101],
    [{ ...base, url: 'https://api.example.com/x' }, 'URL_HAS_SCHEME', 102],
    [{ ...base, url: 'ftp://api.example.com' }, 'URL_HAS_SCHEME', 102],
    [{ ...base, url: 'api example.com' }, 'URL_INVALID', 100],
    [{ ...base, requestMethod: undefined }, 'METHOD_REQUIRED', 110],
    [{ ...base, requestMethod: 'PUT' }, 'METHOD_INVALID', 111],
    [{ ...base, requestMethod: 'get' }, 'METHOD_INVALID', 111],
    [{ ...base, responseFormat: undefined }, 'FORMAT_REQUIRED', 112],
    [{ ...base, responseFormat: 'xml' }, 'FORMAT_INVALID', 113],
    [{ ...base, responseFormat: 'html', selector: '/html' }, 'HTML_RESULT_TYPE_REQUIRED', 114],
    [{ ...base, responseFormat: 'html', selector: '/html', htmlResultType: 'text' }, 'HTML_RESULT_TYPE_INVALID', 115],
    [{ ...base, htmlResultType: 'value' }, 'HTML_RESULT_TYPE_NOT_HTML', undefined],
    [{ ...base, responseFormat: 'html', htmlResultType: 'value', selector: "//div[@id='p'" }, 'SELECTOR_INVALID_XPATH', 116],
    [{ ...base, selector: 'data[0].price' }, 'SELECTOR_INVALID_JSON_PATH', 222],
    [{ ...base, selector: 'data..price' }, 'SELECTOR_INVALID_JSON_PATH', 222],
    [{ ...base, requestMethod: 'POST', requestContentType: 'text/plain' }, 'BODY_REQUIRED', 120],
    [{ ...base, requestMethod: 'POST', requestBody: 'x' }, 'CONTENT_TYPE_REQUIRED', 121],
    [{ ...base, requestBody: 'x' }, 'BODY_WITHOUT_POST', undefined],
    [{ ...base, requestContentType: 'text/plain' }, 'CONTENT_TYPE_WITHOUT_POST', undefined],
    [{ ...base, requestMethod: 'POST', requestContentType: 'text/plain', requestBody: 'é'.repeat(2049) }, 'FIELD_TOO_LONG', 130],
    [{ ...base, requestHeaders: { 'Bad Name': 'x' } }, 'HEADERS_INVALID', 100],
    [{ ...base, requestHeaders: { A: 'x\r\nB: y' } }, 'HEADERS_INVALID', 100],
    [{ ...base, encodingOptions: undefined }, 'ENCODING_REQUIRED', 142],
    [{ ...base, encodingOptions: {} }, 'ENCODING_VALUE_REQUIRED', 142],
    [{ ...base, encodingOptions: { value: 'bool' } }, 'ENCODING_VALUE_INVALID', 140],
    [{ ...base, encodingOptions: { value: 'float' } }, 'PRECISION_REQUIRED', 143],
    [{ ...base, encodingOptions: { value: 'float', precision: 13 } }, 'PRECISION_TOO_BIG', 141],
    [{ ...base, encodingOptions: { value: 'float', precision: 1.5 } }, 'PRECISION_INVALID', undefined],
  ])('%# refuses with its code', (req, code, errorCode) => {
    expect(failure(req)).toMatchObject({ code, errorCode });
  });

  it('enforces the whitelist on the exact host (390)', () => {
    expect(failure(base, { whitelist: ['example.com'] })).toMatchObject({ code: 'NOT_WHITELISTED', errorCode: 390, field: 'url' });
    expect(failure({ ...base, url: 'api.example.com.evil.org/x' }, { whitelist: ['api.example.com'] }).errorCode).toBe(390);
    expect(failure({ ...base, url: 'api.example.com:8443/x' }, { whitelist: ['api.example.com'] }).code).toBe('none');
  });

  it('precision 12 is the maximum; 4096 bytes fit a field', () => {
    expect(failure({ ...base, encodingOptions: { value: 'float', precision: 12 } }).code).toBe('none');
    expect(failure({ ...base, requestMethod: 'POST', requestContentType: 't', requestBody: 'a'.repeat(4096) }).code).toBe('none');
  });
});

describe('selectors', () => {
  it('json key paths', () => {
    for (const ok of ['', 'a', 'a.b', 'list.[1]', 'daily.rain_sum.[0]', '[0].x', 'a-b.c_d']) expect(isValidJsonKeyPath(ok), ok).toBe(true);
    for (const bad of ['a.', '.a', 'a[0]', 'a.[x]', 'a.[01]', 'a.[-1]', 'a]', ' a']) expect(isValidJsonKeyPath(bad), bad).toBe(false);
  });
  it('xpath sanity', () => {
    for (const ok of ['/html/head/title', "//*[@id='x']/text()", '(//td)[2]', "//a[contains(@href, ']')]", '/']) expect(isPlausibleXPath(ok), ok).toBe(true);
    for (const bad of ['//div[', '//div)', '///div', '//div/', "//a[@x='1]", '//div[]', '#id', '//a\n/b']) expect(isPlausibleXPath(bad), bad).toBe(false);
  });
});

describe('truncateFloat', () => {
  it('cuts, never rounds', () => {
    expect(truncateFloat('123.4567', 3)).toBe('123.456');
    expect(truncateFloat('123.4567', 0)).toBe('123');
    expect(truncateFloat('1.99', 2)).toBe('1.99');
    expect(truncateFloat('1.9', 3)).toBe('1.9');
    expect(truncateFloat('0.999999999999999', 12)).toBe('0.999999999999');
    expect(() => truncateFloat('1.5', 13)).toThrow(RangeError);
    expect(() => truncateFloat('-1.5', 1)).toThrow(RangeError);
  });
  it('keeps min(len, precision) fraction digits as a prefix of the input', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{1,10}$/), fc.stringMatching(/^[0-9]{0,15}$/), fc.integer({ min: 0, max: 12 }), (i, f, p) => {
        const v = f === '' ? i : `${i}.${f}`;
        const t = truncateFloat(v, p);
        expect(v.startsWith(t)).toBe(true);
        const kept = t.includes('.') ? t.split('.')[1]! : '';
        expect(kept).toBe(f.slice(0, p));
      }),
    );
  });
});

describe('headers', () => {
  it('49 never-masked names, case-insensitive; everything else masked', () => {
    expect(NEVER_MASKED_HEADERS).toHaveLength(49);
    expect(new Set(NEVER_MASKED_HEADERS.map((h) => h.toLowerCase())).size).toBe(49);
    expect(isNeverMasked('user-agent') && isNeverMasked('SEC-GPC') && isNeverMasked('x-att-deviceid')).toBe(true);
    expect(maskHeaders({ Authorization: 'Bearer x', cookie: 'a=b', 'X-Api-Key': 'k', 'content-type': 'text/plain', Dnt: '1' })).toEqual({
      Authorization: '*****',
      cookie: '*****',
      'X-Api-Key': '*****',
      'content-type': 'text/plain',
      Dnt: '1',
    });
  });
  it('merges {...defaults, ...user} with case-sensitive keys', () => {
    expect(mergeRequestHeaders(undefined)).toEqual(DEFAULT_CLIENT_HEADERS);
    const m = mergeRequestHeaders({ 'User-Agent': 'me', 'user-agent': 'me2', DNT: '0' });
    expect(m['User-Agent']).toBe('me');
    expect(m['user-agent']).toBe('me2');
    expect(m.DNT).toBe('0');
    expect(m.Accept).toBe('*/*');
    expect(Object.values(maskHeaders(DEFAULT_CLIENT_HEADERS))).not.toContain('*****');
  });
});

describe('parseNotarizerInfo', () => {
  const id = new Uint8Array(32).map((_, i) => i);
  const signer = new Uint8Array(32).fill(7);
  const product = new Uint8Array(16);
  const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
  const addr = 'aleo18kstmx5l07vkks6prg9r37vffayvucqdzjwvk8sngp7540q06ugs9cw66m';
  const sgx = {
    reportType: 'sgx',
    info: { securityVersion: 1, debug: false, uniqueId: b64(id), signerId: b64(signer), productId: b64(product), tcbStatus: 0, aleo: { uniqueId: formatUniqueId(id), signerId: formatUniqueId(signer), productId: formatProductId(product) } },
    signerPubKey: addr,
  };
  const pcrs = Array.from({ length: 16 }, (_, i) => new Uint8Array(48).fill(i));
  const nitro = {
    reportType: 'nitro',
    info: {
      document: { moduleID: 'm', timestamp: 1, digest: 'SHA384', pcrs: Object.fromEntries(pcrs.map((p, i) => [String(i), b64(p)])), certificate: 'AA==', cabundle: ['AA=='], userData: null, nonce: null },
      protectedCose: 'oQE4Ig==',
      signature: 'AA==',
      aleo: { pcrs: formatPcrStruct(pcrs.slice(0, 3)), userData: '0u128' },
    },
    signerPubKey: addr,
  };
  it('types sgx and nitro records and exposes the measurements', () => {
    const a = parseNotarizerInfo(sgx, 'https://n1');
    expect(a.kind).toBe('typeA');
    if (a.kind === 'typeA') {
      expect(a.uniqueId).toEqual(id);
      expect(a.info.ledger.uniqueId).toBe(formatUniqueId(id));
    }
    const b = parseNotarizerInfo(nitro, 'https://n2');
    expect(b.kind === 'typeB' && b.pcrValues[2]).toEqual(pcrs[2]);
    // the spec's spelling (typeA, ledger) is accepted as well
    expect(parseNotarizerInfo({ ...sgx, reportType: 'typeA', info: { ...sgx.info, aleo: undefined, ledger: sgx.info.aleo } }, 'x').kind).toBe('typeA');
  });
  it('refuses inconsistent or malformed records', () => {
    const wrongLedger = { ...sgx, info: { ...sgx.info, aleo: { ...sgx.info.aleo, uniqueId: formatUniqueId(signer) } } };
    expect(() => parseNotarizerInfo(wrongLedger, 'x')).toThrow(/does not encode/);
    expect(() => parseNotarizerInfo({ ...sgx, info: { ...sgx.info, uniqueId: 'AAAA' } }, 'x')).toThrow(/32 bytes/);
    expect(() => parseNotarizerInfo({ ...sgx, reportType: 'tdx' }, 'x')).toThrow(/unknown reportType/);
    expect(() => parseNotarizerInfo({ ...sgx, signerPubKey: 'aleo1xyz' }, 'x')).toThrow(/Aleo address/);
    const badPcr = structuredClone(nitro);
    badPcr.info.aleo.pcrs = formatPcrStruct([pcrs[1]!, pcrs[1]!, pcrs[2]!]);
    expect(() => parseNotarizerInfo(badPcr, 'x')).toThrow(/does not encode/);
  });
});
