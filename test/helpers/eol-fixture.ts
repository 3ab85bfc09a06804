// A fixture end-of-life mapping per tenant for the generated suites (mappings have no generic create), written the
// way a person writes one: the feature on, a one-product catalog imported, the platform's mapping PUT through its
// endpoint; then the feature off again, as the suites expect it.
import { expect } from 'vitest';
import { importDocument } from '../../src/lifecycle/service.ts';
import type { Harness, Who } from './harness.ts';

const CATALOG = Buffer.from(
  JSON.stringify({
    schema_version: '1.2.0',
    total: 1,
    result: [{ name: 'fixture-os', label: 'Fixture OS', category: 'os', aliases: [], releases: [{ name: '1.0', releaseDate: '2024-01-01', eolFrom: '2030-01-01', isEol: false }] }],
  }),
);

/** Maps each `platforms` entry (who → a platform of who's tenant) to Fixture OS 1.0. */
export async function seedEolMappings(h: Harness, platforms: Array<[Who, string]>): Promise<void> {
  expect((await h.as('admin').put('/api/eol/settings/', { enabled: true })).statusCode).toBe(200);
  await importDocument(h.database.db, CATALOG);
  for (const [who, platform] of platforms) {
    const res = await h.as(who).put(`/api/eol/platforms/${platform}/`, { product: 'fixture-os', cycle: '1.0' });
    expect(res.statusCode, res.body).toBe(200);
  }
  expect((await h.as('admin').put('/api/eol/settings/', { enabled: false })).statusCode).toBe(200);
}
