/**
 * The registry of src/errorCodes.ts is exactly the set of codes the verifier can emit. The sources
 * are read with the TypeScript parser: every string literal shaped like a code (SCREAMING_SNAKE
 * with an underscore) is an emitted code, wherever it stands (VerifierError(…), fail(…),
 * failure(…), answer400(…, 'CODE'), `code: '…'`, a ternary…), except where it is only compared
 * with (`=== 'X'`, `case 'X':`: codes of other libraries, e.g. Fastify's FST_ERR_*) and inside the
 * `…Codes` declarations themselves.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ERROR_CODES_BY_DOMAIN } from '../../../src/errorCodes.js';

const CODE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** A literal that is only compared with, not produced. */
function isComparison(n: ts.Node): boolean {
  const p = n.parent;
  if (ts.isCaseClause(p)) return true;
  if (!ts.isBinaryExpression(p)) return false;
  const op = p.operatorToken.kind;
  return op === ts.SyntaxKind.EqualsEqualsEqualsToken || op === ts.SyntaxKind.ExclamationEqualsEqualsToken;
}

export interface CodeUse {
  code: string;
  where: string;
}

/** Code-shaped literals of `source`, outside comparisons and `…Codes` declarations. */
export function codeLiterals(fileName: string, source: string): CodeUse[] {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const out: CodeUse[] = [];
  const visit = (n: ts.Node): void => {
    // `…Codes` lists declare codes; a constant named `…_ENV` holds an environment variable's name.
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && /(Codes|_ENV)$/.test(n.name.text)) return;
    if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && CODE.test(n.text) && !isComparison(n)) {
      out.push({ code: n.text, where: `${fileName}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}` });
    }
    // A code assembled at run time could not be checked here: refuse templates that start like one.
    if (ts.isTemplateExpression(n) && /^[A-Z][A-Z0-9]*_/.test(n.head.text)) {
      out.push({ code: `\`${n.head.text}…\``, where: `${fileName}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}` });
    }
    n.forEachChild(visit);
  };
  visit(sf);
  return out;
}

// The notarizer client library (src/client) is a separate API with its own ClientError codes.
const verifierSources = files('src').filter((f) => !f.startsWith(join('src', 'client')));
const uses = verifierSources.flatMap((f) => codeLiterals(f, readFileSync(f, 'utf8')));

describe('error codes', () => {
  it('are unique SCREAMING_SNAKE identifiers', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    for (const c of ERROR_CODES) expect(c).toMatch(CODE);
    expect(Object.keys(ERROR_CODES_BY_DOMAIN).length).toBeGreaterThan(10);
  });

  it('the scanner finds codes in every form the sources use', () => {
    const sample = [
      "throw new VerifierError('A_ONE', 'm');",
      "fail('A_TWO', 'm');",
      "return failure('A_THREE', 'm');",
      "reply.send(answer400('no reports', 'A_FOUR'));",
      "const x = { status: 400, code: 'A_FIVE' };",
      "const c = bad ? 'A_SIX' : 'A_SEVEN';",
      "if (e.code === 'NOT_OURS') {}",
      "switch (e.code) { case 'ALSO_NOT_OURS': break; }",
      "export const DemoCodes = ['DECLARED_ONLY'] as const;",
      "const dynamic = `A_${kind}`;",
      "const plain = 'GET'; const header = 'X-Not-A-Code';",
    ].join('\n');
    expect(codeLiterals('sample.ts', sample).map((u) => u.code)).toEqual(['A_ONE', 'A_TWO', 'A_THREE', 'A_FOUR', 'A_FIVE', 'A_SIX', 'A_SEVEN', '`A_…`']);
  });

  it('every code literal the verifier (src/ except the client library) can emit is declared', () => {
    const declared = new Set<string>(ERROR_CODES);
    expect(uses.filter((u) => !declared.has(u.code)).map((u) => `${u.code} at ${u.where}`)).toEqual([]);
    expect(new Set(uses.map((u) => u.code)).size).toBeGreaterThan(150);
  });

  it('every declared code is emitted somewhere', () => {
    const used = new Set(uses.map((u) => u.code));
    expect(ERROR_CODES.filter((c) => !used.has(c))).toEqual([]);
  });
});
