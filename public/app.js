// @ts-check
/**
 * The verify page: POST /decodeReport for a pasted userData/report pair, GET /ledger/transactions/{id}
 * for a transaction id; shows the verdict, the ordered checks, the decoded data (one row per
 * request), the measurements beside the configured targets (GET /info), the TCB status and the
 * full JSON for download. Every failed request is shown in the alert area. Plain ES module,
 * type-checked by tsc (public/tsconfig.json); all data is inserted as text, never as HTML.
 */

/** @typedef {{ id: string, title: string, status: 'passed' | 'failed' | 'skipped', code?: string }} Check */
/** @typedef {{ url?: string, selector?: string, attestationData?: string, timestamp?: number, tokenId?: number, encodingOptions?: { value?: string, precision?: number } }} Decoded */
/**
 * @typedef {{ reportType?: string, reportValid: boolean, errorString?: string, errorCode?: string, checks?: Check[],
 *   decodedData?: Decoded, decodedRequests?: Decoded[], decodedReport?: Record<string, unknown> }} DecodeReportBody
 */
/**
 * @typedef {{ transactionId: string, transitionId: string, blockHeight: number, program: string, function: string, reportType: string,
 *   reportValid: boolean, errorCode?: string, errorString?: string, decodedData?: Decoded, decodedRequests?: Decoded[], tcbStatus?: string,
 *   measurements: { uniqueId?: string, pcrs?: string[] }, checks?: Check[] }} LedgerRecord
 */
/** @typedef {{ transactionId: string, blockHeight: number, updates: LedgerRecord[] }} TransactionBody */
/** @typedef {{ uniqueId?: string, pcrs?: string[] }} Targets */

/** @type {Targets} */
let targets = {};
let downloadUrl = '';

/**
 * @param {string} id
 * @returns {HTMLElement}
 */
function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`page element #${id} missing`);
  return el;
}

/**
 * @param {string} tag
 * @param {string} [text]
 * @param {string} [cls]
 * @returns {HTMLElement}
 */
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

/** @param {string} message */
function showError(message) {
  byId('errors').append(el('p', message));
}

function clearErrors() {
  byId('errors').replaceChildren();
}

/**
 * Fetches JSON; any network failure, non-JSON answer or HTTP error becomes an Error with the
 * server's errorCode and errorString when it sent them.
 * @param {string} url
 * @param {RequestInit} [init]
 * @returns {Promise<unknown>}
 */
async function fetchJson(url, init) {
  let r;
  try {
    r = await fetch(url, init);
  } catch (e) {
    throw new Error(`${init?.method ?? 'GET'} ${url} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  const text = await r.text();
  /** @type {unknown} */
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${init?.method ?? 'GET'} ${url} answered HTTP ${r.status} with a body that is not JSON`);
  }
  if (!r.ok) {
    const b = /** @type {{ errorCode?: string, errorString?: string }} */ (body ?? {});
    throw new Error(`${init?.method ?? 'GET'} ${url} answered HTTP ${r.status}: ${b.errorCode ?? 'error'}: ${b.errorString ?? text}`);
  }
  return body;
}

/** @param {string} b64 */
function base64ToHex(b64) {
  const bin = atob(b64);
  let hex = '';
  for (let i = 0; i < bin.length; i++) hex += bin.charCodeAt(i).toString(16).padStart(2, '0');
  return hex;
}

/** @param {number | undefined} seconds */
function readableTime(seconds) {
  if (typeof seconds !== 'number') return '';
  return `${new Date(seconds * 1000).toISOString().replace('T', ' ').replace(/\.000Z$/, ' UTC')}`;
}

async function loadTargets() {
  const line = byId('targets');
  try {
    const info = /** @type {{ targetUniqueId?: { hexEncoded?: string }, targetPcrValues?: { hexEncoded?: string[] } }} */ (await fetchJson('/info'));
    targets = {
      ...(info.targetUniqueId?.hexEncoded ? { uniqueId: info.targetUniqueId.hexEncoded } : {}),
      ...(info.targetPcrValues?.hexEncoded ? { pcrs: info.targetPcrValues.hexEncoded } : {}),
    };
    line.textContent = `Configured targets: unique ID ${targets.uniqueId ?? '(none)'}; PCR0–2 ${(targets.pcrs ?? []).join(', ') || '(none)'}`;
  } catch (e) {
    line.textContent = 'Configured targets: unavailable';
    showError(e instanceof Error ? e.message : String(e));
  }
}

/**
 * @param {string} heading
 * @param {string[]} head
 * @param {(string | HTMLElement)[][]} rows
 * @returns {HTMLElement}
 */
function table(heading, head, rows) {
  const t = el('table');
  t.append(el('caption', heading));
  const hr = el('tr');
  for (const h of head) hr.append(el('th', h));
  t.append(el('thead'));
  /** @type {HTMLElement} */ (t.lastChild).append(hr);
  const tb = el('tbody');
  for (const row of rows) {
    const tr = el('tr');
    for (const cell of row) {
      const td = el('td');
      td.append(cell);
      tr.append(td);
    }
    tb.append(tr);
  }
  t.append(tb);
  return t;
}

/** @param {Check[] | undefined} checks */
function checksList(checks) {
  const wrap = el('div');
  wrap.append(el('h3', 'Checks'));
  if (!checks || checks.length === 0) {
    wrap.append(el('p', 'No check trace in this answer.', 'note'));
    return wrap;
  }
  const ol = el('ol', undefined, 'checks');
  ol.setAttribute('aria-label', 'Checks');
  for (const c of checks) {
    const li = el('li', `${c.status}: ${c.title} (${c.id})${c.code ? ` — ${c.code}` : ''}`, c.status);
    ol.append(li);
  }
  wrap.append(ol);
  return wrap;
}

/**
 * One row per request (token) of multi-request userData; one row for single-request data.
 * @param {Decoded | undefined} first
 * @param {Decoded[] | undefined} all
 */
function decodedTable(first, all) {
  const list = all && all.length > 0 ? all : first ? [first] : [];
  if (list.length === 0) return el('p', 'userData could not be decoded.', 'note');
  return table(
    'Decoded data',
    ['Token', 'URL', 'Selector', 'Value', 'Time'],
    list.map((d) => [d.tokenId === undefined ? '' : String(d.tokenId), d.url ?? '', d.selector ?? '', d.attestationData ?? '', readableTime(d.timestamp)]),
  );
}

/**
 * @param {string} got
 * @param {string | undefined} want
 * @returns {HTMLElement}
 */
function compareCell(got, want) {
  if (want === undefined) return el('span', 'no target configured');
  return got.toLowerCase() === want.toLowerCase() ? el('span', 'matches', 'match') : el('span', 'mismatch', 'mismatch');
}

/** @param {{ uniqueId?: string, pcrs?: string[] }} m */
function measurementsTable(m) {
  /** @type {(string | HTMLElement)[][]} */
  const rows = [];
  if (m.uniqueId) rows.push(['Unique ID', el('span', m.uniqueId, 'mono'), el('span', targets.uniqueId ?? '', 'mono'), compareCell(m.uniqueId, targets.uniqueId)]);
  (m.pcrs ?? []).forEach((p, i) => rows.push([`PCR${i}`, el('span', p, 'mono'), el('span', targets.pcrs?.[i] ?? '', 'mono'), compareCell(p, targets.pcrs?.[i])]));
  if (rows.length === 0) return el('p', 'No measurements could be read from the report.', 'note');
  return table('Measurements', ['Measurement', 'Report', 'Configured target', 'Result'], rows);
}

/** @param {Record<string, unknown> | undefined} report */
function reportMeasurements(report) {
  if (!report) return {};
  if (typeof report.uniqueId === 'string') return { uniqueId: base64ToHex(report.uniqueId) };
  const pcrs = /** @type {Record<string, unknown> | undefined} */ (report.pcrs);
  if (pcrs && typeof pcrs === 'object') {
    const list = ['0', '1', '2'].map((k) => pcrs[k]).filter((v) => typeof v === 'string');
    return { pcrs: list.map((v) => base64ToHex(/** @type {string} */ (v))) };
  }
  return {};
}

/**
 * @param {string | undefined} reportType
 * @param {string | undefined} status
 * @param {unknown} advisories
 */
function tcbLine(reportType, status, advisories) {
  if (reportType !== 'typeA') return el('p', `TCB status: not applicable (${reportType ?? 'unknown'} report)`);
  const ids = Array.isArray(advisories) ? advisories.map(String) : [];
  return el('p', `TCB status: ${status ?? 'unknown'}; advisories: ${ids.length ? ids.join(', ') : 'none'}`);
}

/**
 * @param {boolean} valid
 * @param {string} text
 */
function setVerdict(valid, text) {
  const v = byId('verdict');
  v.className = valid ? 'valid' : 'invalid';
  v.textContent = text;
}

/** @param {unknown} body */
function offerDownload(body) {
  if (downloadUrl) URL.revokeObjectURL(downloadUrl);
  downloadUrl = URL.createObjectURL(new Blob([JSON.stringify(body, null, 2)], { type: 'application/json' }));
  byId('download').setAttribute('href', downloadUrl);
}

/** @param {DecodeReportBody} b */
function showReport(b) {
  setVerdict(b.reportValid, b.reportValid ? 'valid' : `invalid: ${b.errorString ?? 'no reason given'}${b.errorCode ? ` (${b.errorCode})` : ''}`);
  const d = byId('details');
  const rep = b.decodedReport ?? {};
  d.replaceChildren(
    el('p', `Report kind: ${b.reportType ?? 'not detected'}`),
    checksList(b.checks),
    decodedTable(b.decodedData, b.decodedRequests),
    measurementsTable(reportMeasurements(b.decodedReport)),
    tcbLine(b.reportType, typeof rep.tcbStatusName === 'string' ? rep.tcbStatusName : undefined, rep.advisoryIds),
  );
  offerDownload(b);
  byId('result').hidden = false;
}

/** @param {TransactionBody} t */
function showTransaction(t) {
  const bad = t.updates.find((u) => !u.reportValid);
  if (t.updates.length === 0) setVerdict(false, 'invalid: the transaction holds no oracle update');
  else if (bad) setVerdict(false, `invalid: ${bad.errorString ?? 'no reason given'}${bad.errorCode ? ` (${bad.errorCode})` : ''}`);
  else setVerdict(true, 'valid');
  const d = byId('details');
  d.replaceChildren(el('p', `Transaction ${t.transactionId} at block height ${t.blockHeight}: ${t.updates.length} oracle update(s)`));
  t.updates.forEach((u, i) => {
    const s = el('section');
    s.append(
      el('h3', `Update ${i + 1}: ${u.program}/${u.function} — ${u.reportValid ? 'valid' : 'invalid'}`),
      el('p', `Transition ${u.transitionId}; report kind ${u.reportType}${u.errorCode ? `; ${u.errorCode}: ${u.errorString ?? ''}` : ''}`, 'note'),
      checksList(u.checks),
      decodedTable(u.decodedData, u.decodedRequests),
      measurementsTable(u.measurements),
      tcbLine(u.reportType, u.tcbStatus, undefined),
    );
    d.append(s);
  });
  offerDownload(t);
  byId('result').hidden = false;
}

/**
 * Runs one request for a form: clears the old result and errors, disables the button meanwhile.
 * @param {HTMLFormElement} form
 * @param {() => Promise<void>} run
 */
async function submitting(form, run) {
  const button = form.querySelector('button');
  clearErrors();
  byId('result').hidden = true;
  if (button) button.disabled = true;
  try {
    await run();
  } catch (e) {
    showError(e instanceof Error ? e.message : String(e));
  } finally {
    if (button) button.disabled = false;
  }
}

function main() {
  const verifyForm = /** @type {HTMLFormElement} */ (byId('verify-form'));
  const lookupForm = /** @type {HTMLFormElement} */ (byId('lookup-form'));
  verifyForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const userData = /** @type {HTMLTextAreaElement} */ (byId('userData')).value.trim();
    const report = /** @type {HTMLTextAreaElement} */ (byId('report')).value.trim();
    void submitting(verifyForm, async () => {
      const body = await fetchJson('/decodeReport', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userData, report }) });
      showReport(/** @type {DecodeReportBody} */ (body));
    });
  });
  lookupForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const id = /** @type {HTMLInputElement} */ (byId('txid')).value.trim();
    void submitting(lookupForm, async () => {
      const body = await fetchJson(`/ledger/transactions/${encodeURIComponent(id)}`);
      showTransaction(/** @type {TransactionBody} */ (body));
    });
  });
  void loadTargets();
}

main();
