// The one scoped read path: no tenant condition is written by hand outside src/core/ (domain code asks the core
// for one). A grep of the sources, so a new hand fence fails here with its file and line.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return full === join(SRC, 'core') || full === join(SRC, 'db') ? [] : sources(full);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [full] : [];
  });
}

// Outside src/core/ the tenant column is not spelt at all: rows carry their tenant as `tenant` (tenantAs), stored
// rows are read with tenantOf / rowTenant, column lists use tenantColumn, and every condition is one of the core's
// (scopeCondition, callerTenant, inTenant, sameTenant, tenantKeys, deploymentWide, joinTenantRecord).
const SPELT = /\btenant_id\b/;
// tenantColumn compared with something: a fence written with the core's name for the column. An upsert's SET from
// `excluded` is a copy, not a fence.
const COMPARED = /tenantColumn\([^)]*\)\}\s*(=|<>|!=|IS\b|IN\b)|(=|<>|!=)\s*\$\{tenantColumn\((?!'excluded'\))/i;

function offending(pattern: RegExp): string[] {
  const found: string[] = [];
  for (const file of sources(SRC)) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (pattern.test(line)) found.push(`${relative(SRC, file)}:${i + 1}: ${line.trim()}`);
      });
  }
  return found;
}

it('finds the tenant column spelt nowhere in src/ outside src/core/ and src/db/', () => {
  expect(offending(SPELT)).toEqual([]);
});

it('finds no tenant condition written with tenantColumn outside src/core/', () => {
  expect(offending(COMPARED)).toEqual([]);
});

it('would find them (the checks themselves work)', () => {
  for (const line of ['WHERE a.tenant_id = ${ctx.tenantId}', 'SELECT o.tenant_id FROM x', 'row.tenant_id !== null']) {
    expect(SPELT.test(line), line).toBe(true);
  }
  expect(SPELT.test('const tenantId = ctx.tenantId')).toBe(false);
  for (const line of ['WHERE ${tenantColumn(\'a\')} = ${ctx.tenantId}', 'ON ${tenantColumn(\'w\')} IS NULL', 'ON x.t = ${tenantColumn(\'w\')}']) {
    expect(COMPARED.test(line), line).toBe(true);
  }
  expect(COMPARED.test('SET ${tenant} = ${tenantColumn(\'excluded\')}')).toBe(false);
  expect(COMPARED.test('INSERT INTO x (id, ${tenantColumn()}, y)')).toBe(false);
});
