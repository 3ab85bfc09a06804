// A client generated from the live OpenAPI document drives a real server: openapi-typescript turns the document
// GET /api/schema/ serves into types, the TypeScript compiler checks a small openapi-fetch program against them
// (test/openapi-client/round-trip.ts, with lines it must refuse; and the web UI's aliases in web/src/api/types.ts),
// and the program runs over HTTP: create a site and devices, list them, bulk-update them, read a bad write's 400
// as a typed error naming the field.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typesOfDocument } from '../scripts/openapi-types.ts';
import { startHarness, type Harness } from './helpers/harness.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));

let h: Harness;
let baseUrl: string;
// Inside the repository, so the program's `openapi-fetch` import resolves from its node_modules.
let scratch: string;

beforeAll(async () => {
  h = await startHarness();
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  scratch = mkdtempSync(join(HERE, '.scratch-openapi-client-'));
});
afterAll(async () => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  await h?.close();
});

/** The compiler's complaints about `files` (in `dir`), one line each; empty when they type-check. */
function typeErrors(dir: string, files: string[]): string[] {
  const roots = files.map((f) => join(dir, f));
  const program = ts.createProgram(roots, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    types: [],
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  });
  // These files' own diagnostics (and the options'): checking all of the generated file would triple the cost,
  // and what it declares is checked where they use it.
  const diagnostics = [...program.getOptionsDiagnostics()];
  for (const root of roots) {
    const file = program.getSourceFile(root)!;
    diagnostics.push(...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file));
  }
  return diagnostics.map((d) => {
    const where = d.file && d.start !== undefined ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : '';
    return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
  });
}

describe('a client generated from the live OpenAPI document', () => {
  it('type-checks against the generated types and does a round trip over HTTP', async () => {
    const res = await fetch(`${baseUrl}/api/schema/`, { headers: { authorization: `Token ${h.tokens.alice}` } });
    expect(res.status).toBe(200);
    writeFileSync(join(scratch, 'schema.gen.ts'), await typesOfDocument(await res.text()));
    cpSync(join(HERE, 'openapi-client', 'round-trip.ts'), join(scratch, 'round-trip.ts'));
    // The web UI's API types alias components of the same document: checked here too, so CI (which does not
    // type-check the UI) notices a server change that would break them.
    cpSync(join(HERE, '..', 'web', 'src', 'api', 'types.ts'), join(scratch, 'ui-types.ts'));
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ type: 'module' }));

    // The @ts-expect-error lines in the program fail this check if the client stops being typed. The document is
    // the same on either database, so the PostgreSQL pass leaves the compiler's seconds to the embedded one.
    if (!process.env.TEST_DATABASE_URL) expect(typeErrors(scratch, ['round-trip.ts', 'ui-types.ts'])).toEqual([]);

    // Not imported statically: the program compiles only beside the types generated here (see tsconfig.json).
    const { roundTrip } = (await import(pathToFileURL(join(scratch, 'round-trip.ts')).href)) as { roundTrip: (baseUrl: string, token: string) => Promise<unknown> };
    expect(await roundTrip(baseUrl, h.tokens.alice)).toMatchObject({
      deviceIds: [expect.any(String), expect.any(String)],
      listed: { count: 2, names: ['client-sw1', 'client-sw2'] },
      updated: { updated: 2, serials: ['SN-CLIENT', 'SN-CLIENT'] },
      // The 400 names the field; nothing was written.
      badWrite: { status: 400, field: [expect.any(String)], unchanged: 2 },
    });
  });

  it('another tenant sees none of it through the same client', async () => {
    const list = await fetch(`${baseUrl}/api/devices/?name=client-sw1`, { headers: { authorization: `Token ${h.tokens.bob}` } });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { count: number }).count).toBe(0);
  });
});
