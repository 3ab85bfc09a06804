// A catalog status's rules (available to the model, the tenant's default on create) come from one place,
// wireStatusFields, for every model whose field targets extras.status, ahead of the model's own hooks.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../models.ts';
import { allModels } from '../core/registry.ts';
import { registrationsOf } from '../core/provenance.ts';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';

function statusModels(): string[] {
  return allModels()
    .filter((m) => Object.values(m.fields).some((f) => f.kind === 'fk' && f.target === 'extras.status'))
    .map((m) => m.name)
    .sort();
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  );
}

describe('status wiring', () => {
  it('every model with a status field gets both rules from src/extras/statuses.ts, and no model file wires them by hand', () => {
    const models = statusModels();
    // The nine NetBox models with a catalog status; a new one is wired by declaring the field.
    expect(models).toEqual(['circuits.circuit', 'dcim.cable', 'dcim.device', 'ipam.ipaddress', 'ipam.iprange', 'ipam.prefix', 'ipam.vlan', 'organization.site', 'virtualization.virtualmachine']);
    for (const name of models) {
      const wired = registrationsOf(name).filter((r) => r.file === 'src/extras/statuses.ts' && r.what === "hooks ahead of the model's").flatMap((r) => r.names);
      expect(wired, name).toEqual(['validate', 'afterCreate']);
    }
    const byHand = sourceFiles('src').filter((f) => f !== join('src', 'extras', 'statuses.ts') && /\b(checkStatusAvailable|applyDefaultStatus|statusHooks)\(/.test(readFileSync(f, 'utf8')));
    expect(byHand).toEqual([]);
  });
});

describe('status rules through the API', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  async function statusId(slug: string): Promise<string> {
    const res = await h.as('alice').get(`/api/statuses/?slug=${slug}`);
    return res.json().results[0].id as string;
  }

  it('a status not available to the model is a 400 naming the field, and a row sent without one gets the default', async () => {
    const container = await statusId('container');
    const active = await statusId('active');
    const cases: Array<[string, Record<string, unknown>]> = [
      ['/api/sites/', { name: 'sw-site', slug: 'sw-site' }],
      ['/api/vlans/', { vid: 3001, name: 'sw-vlan' }],
      ['/api/ip-addresses/', { address: '198.51.100.7/24' }],
      ['/api/ip-ranges/', { start_address: '198.51.100.10/24', end_address: '198.51.100.20/24' }],
    ];
    for (const [path, body] of cases) {
      const refused = await h.as('alice').post(path, { ...body, status: container });
      expect(refused.statusCode, `${path} ${refused.body}`).toBe(400);
      expect(refused.body).toMatch(/status/);
      expect(refused.body).toContain('is not available to');
      const made = await h.as('alice').post(path, body);
      expect(made.statusCode, `${path} ${made.body}`).toBe(201);
      expect(made.json().status?.id ?? made.json().status, path).toBe(active);
    }
    // A prefix may be a container; one sent without a status is Active, and its hooks (uniqueness, hierarchy) ran after.
    const top = await h.as('alice').post('/api/prefixes/', { prefix: '198.51.100.0/24', status: container });
    expect(top.statusCode, top.body).toBe(201);
    const child = await h.as('alice').post('/api/prefixes/', { prefix: '198.51.100.0/25' });
    expect(child.statusCode, child.body).toBe(201);
    expect(child.json().status?.id ?? child.json().status).toBe(active);
    expect(child.json().depth).toBe(1);
    // An update is checked too, single and bulk.
    const site = (await h.as('alice').get('/api/sites/?slug=sw-site')).json().results[0].id as string;
    const patched = await h.as('alice').patch(`/api/sites/${site}/`, { status: container });
    expect(patched.statusCode, patched.body).toBe(400);
    expect(patched.body).toContain('is not available to organization.site');
    const bulk = await h.as('alice').post('/api/sites/bulk-update/', { ids: [site], fields: { status: container } });
    expect(bulk.statusCode, bulk.body).toBe(400);
    expect(bulk.body).toContain('is not available to organization.site');
  });
});
