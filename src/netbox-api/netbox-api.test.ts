// The NetBox dialect in-process: shapes, filters, writes (single, list forms), errors, the special routes, and the
// tenant fence, over Cairn's own reads and writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';

let h: Harness;
type Obj = Record<string, unknown>;
let site: Obj;
let device: Obj;

async function ok(res: { statusCode: number; body: string; json(): unknown }, status = 200): Promise<Obj> {
  expect(res.statusCode, res.body).toBe(status);
  return res.json() as Obj;
}

beforeAll(async () => {
  h = await startHarness();
  const alice = h.as('alice');
  site = await ok(await alice.post('/api/dcim/sites/', { name: 'Amsterdam 1', slug: 'ams1', status: 'active' }), 201);
  const role = await ok(await alice.post('/api/dcim/device-roles/', { name: 'Leaf', slug: 'leaf', color: '00ff00' }), 201);
  const maker = await ok(await alice.post('/api/dcim/manufacturers/', { name: 'Arista', slug: 'arista' }), 201);
  await ok(await alice.post('/api/dcim/device-types/', { manufacturer: maker.id, model: '7050', slug: '7050' }), 201);
  await ok(await alice.post('/api/dcim/platforms/', { name: 'EOS', slug: 'eos' }), 201);
  device = await ok(
    await alice.post('/api/dcim/devices/', { name: 'ams1-leaf1', device_type: { slug: '7050' }, role: role.id, platform: { name: 'EOS' }, site: { slug: 'ams1' }, status: 'active' }),
    201,
  );
});
afterAll(async () => {
  await h?.close();
});

describe('NetBox dialect', () => {
  it('answers NetBox shapes: integer ids, urls, status and choices as {value, label}, brief nested objects', async () => {
    expect(device.id).toEqual(expect.any(Number));
    expect(device.url).toBe(`http://localhost:80/api/dcim/devices/${device.id}/`.replace(':80', ''));
    expect(device.status).toEqual({ value: 'active', label: 'Active' });
    expect(device.site).toMatchObject({ id: site.id, url: expect.stringContaining(`/api/dcim/sites/${site.id}/`), name: 'Amsterdam 1', slug: 'ams1' });
    expect((device.device_type as Obj).manufacturer).toBeUndefined();
    expect(device).toMatchObject({ display: 'ams1-leaf1', tags: [], custom_fields: {} });
    expect(device.created).toEqual(expect.any(String));
    expect(device).not.toHaveProperty('numid');
  });
});
