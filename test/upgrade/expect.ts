// Assertions shared by the upgrade tests.
import { readlinkSync } from 'node:fs';
import { expect } from 'vitest';
import type { Install } from './install.ts';

/** After a failed or recovered run: exactly one consistent version runs, on a database that matches it. */
export async function expectConsistent(inst: Install, version: string, devices: number): Promise<void> {
  await inst.waitHealthy(version);
  const health = (await inst.api('/api/health/')).body;
  expect(health).toMatchObject({ status: 'ok', version, maintenance: false, db_behind_code: [], code_behind_db: [] });
  expect(readlinkSync(inst.layout.current)).toBe(`releases/${version}`);
  expect((await inst.api('/api/devices/?limit=1')).body).toMatchObject({ count: devices });
}
