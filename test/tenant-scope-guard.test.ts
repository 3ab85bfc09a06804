// The one scoped read path: no tenant condition is written by hand outside src/core/ (domain code asks the core
// for scopeCondition, callerTenant, inTenant, sameTenant or deploymentWide). A grep of the sources, so a new hand
// fence fails here with its file and line.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return full === join(SRC, 'core') || name === 'migrations' ? [] : sources(full);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [full] : [];
  });
}

// tenant_id compared with a value, another row's tenant_id, or NULL: a fence. An upsert's SET from `excluded`
// and a join from a row to its tenants row (t.id = x.tenant_id) are not.
const FENCE = /tenant_id\s*(=\s*(\$\{|\w+\.(?!tenant_id\b)\w+|\w+\.tenant_id)|IS\s+(NOT\s+)?NULL|IN\s*\()/i;

it('finds no hand-written tenant condition in src/ outside src/core/ and migrations', () => {
  const found: string[] = [];
  for (const file of sources(SRC)) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (FENCE.test(line) && !/=\s*excluded\./.test(line)) found.push(`${relative(SRC, file)}:${i + 1}: ${line.trim()}`);
      });
  }
  expect(found).toEqual([]);
});

it('would find one (the check itself works)', () => {
  for (const line of ['WHERE a.tenant_id = ${ctx.tenantId}', 'ON p.tenant_id = a.tenant_id', 'WHERE j.tenant_id IS NULL', 'ON ct.tenant_id = w.tenant']) {
    expect(FENCE.test(line), line).toBe(true);
  }
  expect(FENCE.test('JOIN tenants t ON t.id = o.tenant_id')).toBe(false);
});
