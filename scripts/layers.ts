/**
 * The layers of src/, lowest first: the one table that test/unit/repo/layering.test.ts enforces (no
 * import from a lower layer up) and scripts/gen-docs.ts prints into docs/architecture.md "Layers".
 * A path belongs to the most specific entry that names it (a file, else its deepest listed folder).
 */

export interface LayerEntry {
  /** A file or folder of src/. */
  readonly path: string;
  /** What it holds. */
  readonly holds: string;
}

export const LAYERS: readonly (readonly LayerEntry[])[] = [
  [{ path: 'errorCodes.ts', holds: 'every error code with its traits (HTTP status, outcome, retryable, refused, unanswered)' }],
  [{ path: 'generated', holds: 'generated code and data (Poseidon parameters, the WebAssembly modules as base64): never edited by hand' }],
  [
    { path: 'errors.ts', holds: 'VerifierError, the one error type' },
    { path: 'bytes.ts', holds: 'hex and prefix helpers' },
    { path: 'upstream', holds: 'talking to upstreams: capped bodies, the PCCS fetch, abort on shutdown, URLs and credentials as shown, the HTTP/1 agent and framing' },
    { path: 'typeNames.ts', holds: 'JSON type names in messages' },
    { path: 'jsonSchemaType.ts', holds: 'TypeScript types from JSON schemas' },
    { path: 'packageRoot.ts', holds: 'where the package lies' },
    { path: 'version.ts', holds: 'the verifier name and version' },
    { path: 'rateLimit.ts', holds: 'request pacing, semaphores, bounded rooms' },
    { path: 'requestBudget.ts', holds: 'the daily request budget of public APIs' },
    { path: 'smallFile.ts', holds: 'reading small files with a size limit' },
  ],
  [
    { path: 'aleo', holds: 'the Aleo codecs: u128 struct text, ids, Leo values, Bech32m; a block\'s commitments; inclusion proofs' },
    { path: 'hash', holds: 'Poseidon8 (the binding hash; native, WebAssembly, BigInt) and BHP (inclusion proofs)' },
  ],
  [
    { path: 'encoding', holds: 'the oracle\'s proof-data codec and its four eras' },
    { path: 'attestation', holds: 'typeA (SGX DCAP quote, collateral, TCB) and typeB (Nitro COSE) parsing and verification, DER, X.509, CRLs' },
  ],
  [{ path: 'verify', holds: 'the pure verification core: report kinds, policy, the check trace, decodeReport and /verify' }],
  [
    { path: 'config', holds: 'config.json: schema, loading, checks' },
    { path: 'collateral', holds: 'typeA collateral: PCCS client, circuit, directory, archive, history source' },
    { path: 'observability', holds: 'metrics and log sinks' },
    { path: 'ear', holds: 'signed EAT Attestation Results: claims from a verdict, the signer, the audit summary' },
    { path: 'ledger/programs.ts', holds: 'the program registry (the oracle programs, their roles, eras, mappings)' },
    { path: 'ledger/programsConfig.ts', holds: 'programs added by config' },
  ],
  [
    { path: 'pool', holds: 'the Piscina pool running the core, deadlines, collateral to the workers' },
    { path: 'ledger/node', holds: 'the ledger node client; blocks/: fetching and reading block answers; the mapping listing' },
    { path: 'ledger/records', holds: 'ledger items and output records, mapping writes, completeness' },
    { path: 'ledger/store', holds: 'the SQLite store: schema, lease, updates and retries, mappings' },
    { path: 'startup', holds: 'the reproducible build and the live check' },
    { path: 'client', holds: 'the notarizer client library' },
  ],
  [
    { path: 'ledger/watch', holds: 'the ledger watcher, its lease, the mapping cross-check and the completeness check' },
    { path: 'ledger/inclusion', holds: 'inclusion proofs of scanned records' },
  ],
  [{ path: 'compose.ts', holds: 'the composition root: roots, policy, collateral, pool or in-process service from a Config' }],
  [
    { path: 'server', holds: 'Fastify: plugins, routes, HTTP errors, in-flight bounds, shutdown' },
    { path: 'cli', holds: 'oracle-verifier: its commands' },
  ],
  [{ path: 'bootstrap.ts', holds: 'the server built from a Config' }],
  [
    { path: 'main.ts', holds: 'the server process' },
    { path: 'index.ts', holds: 'the package entry' },
  ],
];

/** Where to look for what (printed under the table; each path must exist). */
export const WHERE: readonly (readonly [string, string])[] = [
  ['a quote\'s signatures checked', 'src/attestation/typeA/verify.ts'],
  ['a Nitro document\'s signature checked', 'src/attestation/typeB/verify.ts'],
  ['the binding hash of userData', 'src/hash/index.ts'],
  ['a report verified end to end (the ordered checks)', 'src/verify/verifyReport.ts'],
  ['a block answer read', 'src/ledger/node/blocks/blocksBody.ts'],
  ['an update\'s inclusion in its block proven', 'src/aleo/inclusion/prove.ts'],
  ['a verdict stored', 'src/ledger/store/updateRows.ts'],
  ['a task dispatched to the pool', 'src/pool/pool.ts'],
  ['an HTTP error shaped', 'src/server/httpErrors.ts'],
  ['an error code and its traits', 'src/errorCodes.ts'],
];

/** The layer of a path of src/ (relative to src/), or undefined. */
export function layerOf(path: string): number | undefined {
  let best: { layer: number; length: number } | undefined;
  LAYERS.forEach((entries, layer) => {
    for (const { path: e } of entries) {
      const hit = path === e || path.startsWith(`${e}/`);
      if (hit && (!best || e.length > best.length)) best = { layer, length: e.length };
    }
  });
  return best?.layer;
}

/** The docs/architecture.md "Layers" table. */
export function layersReference(): string {
  const rows = LAYERS.flatMap((entries, layer) => entries.map((e) => `| ${layer} | \`src/${e.path}\` | ${e.holds} |`));
  return [
    'Each file of `src/` sits on one layer and imports only from its own layer or lower ones (`test/unit/repo/layering.test.ts`); no files import each other in a circle.',
    '',
    '| layer | path | holds |',
    '|---|---|---|',
    ...rows,
    '',
    'Where to look:',
    '',
    ...WHERE.map(([what, where]) => `- ${what}: \`${where}\``),
  ].join('\n');
}
