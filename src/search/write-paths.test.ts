// The search index follows writes that never pass the registry's create/update hooks: a tenant's seeded
// statuses, a device's interfaces and services materialised from its type, the demo-data load, and plain SQL
// updates of every searchable model (what imports, reconciliations and future domain code do). Each write is
// findable right after it, with no rebuild in between.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { created, createDevice, inventoryBasics } from '../../test/helpers/inventory.ts';
import { BodyGenerator, isCreatable } from '../../test/helpers/valid-body.ts';
import { uuidv7 } from '../core/ids.ts';
import { generateDemoData } from '../system/demo-data.ts';
import { searchableModels, type SearchableModel } from './fields.ts';
import { rebuildSearchIndex } from './indexer.ts';

let h: Harness;
interface Hit { object_type: string; id: string; matched_field: string }

async function find(who: 'admin' | 'adminB', text: string, types = ''): Promise<Hit[]> {
  const res = await h.as(who).get(`/api/search/?q=${encodeURIComponent(text)}&limit=100${types ? `&types=${types}` : ''}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().results;
}

/** The tenant's index entries in a stable order, for comparing the live index with a rebuild. */
async function entriesOf(tenantId: string): Promise<string[]> {
  const { rows } = await sql<{ e: string }>`SELECT concat_ws('|', object_type, object_id, field, display, value, norm, address::text) AS e
    FROM search_index WHERE tenant_id = ${tenantId} ORDER BY object_id, field`.execute(h.database.db);
  return rows.map((r) => r.e);
}

beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe('the search index after writes past the registry hooks', () => {
  it('has insert, update and delete triggers on every searchable table straight after migrations', async () => {
    const { rows } = await sql<{ tbl: string; tgname: string }>`SELECT tgrelid::regclass::text AS tbl, tgname FROM pg_trigger
      WHERE tgname LIKE '%\\_search\\_%' AND NOT tgisinternal`.execute(h.database.db);
    const present = new Set(rows.map((r) => `${r.tbl}.${r.tgname}`));
    const missing = searchableModels().flatMap(({ model }) =>
      ['insert', 'update', 'forget'].map((kind) => `${model.table}.${model.table}_search_${kind}`).filter((name) => !present.has(name)),
    );
    expect(missing).toEqual([]);
  });

  it('finds the statuses a new tenant is seeded with', async () => {
    // (Decommissioned and Deprovisioning, the circuits' statuses, are found as near matches.)
    const hits = await find('admin', 'decommissioning', 'extras.status');
    const { rows } = await sql<{ id: string }>`SELECT id FROM statuses WHERE tenant_id = ${h.tenants.a} AND slug = 'decommissioning'`.execute(h.database.db);
    expect(hits[0]!.id).toBe(rows[0]!.id);
  });

  it('finds the interfaces and services a device gets from its type', async () => {
    const b = await inventoryBasics(h.as('admin'), ['xe-0/0/47']);
    await created(h.as('admin'), '/api/device-type-services/', { device_type: b.deviceType, name: 'syslog-relay', protocol_ports: { udp: [514] }, monitor: false });
    const device = await createDevice(h.as('admin'), b, 'materialised-1');
    const iface = (await h.as('admin').get(`/api/interfaces/?device_id=${device.id}`)).json().results[0];
    const service = (await h.as('admin').get(`/api/services/?device_id=${device.id}`)).json().results[0];
    expect((await find('admin', 'xe-0/0/47', 'dcim.interface')).map((x) => x.id)).toContain(iface.id);
    expect((await find('admin', 'syslog-relay', 'monitoring.service')).map((x) => x.id)).toEqual([service.id]);
  });

  it('indexes demo data as it loads, exactly as a rebuild indexes it', async () => {
    const demo = await generateDemoData(h.database.db, { devices: 40, seed: 3, tenantSlug: 'beta' });
    const live = await entriesOf(demo.tenantId);
    const types = new Set(live.map((e) => e.split('|')[0]));
    // Catalogs, devices, interfaces, addresses, prefixes, VLANs, VRFs, BGP…: the load writes a third of the models.
    expect(types.size).toBeGreaterThanOrEqual(15);
    const { rows } = await sql<{ name: string; id: string }>`SELECT name, id FROM devices WHERE tenant_id = ${demo.tenantId} ORDER BY numid LIMIT 1`.execute(h.database.db);
    expect((await find('adminB', rows[0]!.name, 'dcim.device'))[0]!.id).toBe(rows[0]!.id);
    await rebuildSearchIndex(h.database.db, { tenantId: demo.tenantId });
    expect(await entriesOf(demo.tenantId)).toEqual(live);
  }, 120_000);

  it('follows a plain SQL update of every searchable model in the same statement', async () => {
    const gen = new BodyGenerator(h);
    const failures: string[] = [];
    let n = 0;
    for (const s of searchableModels()) {
      const id = isCreatable(s.model) ? await gen.ensureRow(s.model.name, 'admin') : await insertWithSql(gen, s);
      const field = textFieldOf(s);
      const marker = `wpath${++n}qz`;
      await sql`UPDATE ${sql.table(s.model.table)} SET ${sql.ref(field.column)} = ${marker} WHERE id = ${id}`.execute(h.database.db);
      const hits = await find('admin', marker, s.model.name);
      if (!hits.some((x) => x.id === id && x.matched_field === field.key)) failures.push(`${s.model.name}.${field.key}`);
    }
    expect(failures).toEqual([]);
    expect(n).toBe(searchableModels().length);
  }, 300_000);

  it('keeps the whole tenant equal to a rebuild after all of the above', async () => {
    const live = await entriesOf(h.tenants.a);
    await rebuildSearchIndex(h.database.db, { tenantId: h.tenants.a });
    expect(await entriesOf(h.tenants.a)).toEqual(live);
  }, 60_000);
});

/** The field a test writes: the description where there is one, else the first searched text column. */
function textFieldOf(s: SearchableModel): { key: string; column: string } {
  const text = s.fields.filter((f) => f.kind === 'text' && ['string', 'text'].includes(s.model.fields[f.key]!.kind) && !s.model.fields[f.key]!.pattern);
  const field = text.find((f) => f.key === 'description') ?? text[0];
  if (!field) throw new Error(`${s.model.name}: no plain text field to write; pick one for this model here.`);
  return field;
}

/** Rows of models with no create route, written the way their domain writes them (one INSERT statement). */
async function insertWithSql(gen: BodyGenerator, s: SearchableModel): Promise<string> {
  const db = h.database.db;
  const id = uuidv7();
  const tenant = h.tenants.a;
  switch (s.model.name) {
    case 'extras.webhookdelivery': {
      const webhook = await gen.ensureRow('extras.webhook', 'admin');
      await sql`INSERT INTO webhook_deliveries (id, numid, tenant_id, webhook_id, webhook_name, event, object_type, object_id, attempt, error)
        VALUES (${id}, 900001, ${tenant}, ${webhook}, 'audit-hook', 'created', 'extras.tag', ${uuidv7()}, 1, 'connection refused')`.execute(db);
      break;
    }
    case 'automation.deployrun': {
      const device = await gen.ensureRow('dcim.device', 'admin');
      await sql`INSERT INTO deploy_runs (id, numid, tenant_id, device_id, target_name, target_kind, status, note)
        VALUES (${id}, 900001, ${tenant}, ${device}, 'awx-main', 'awx', 'failed', 'maintenance window')`.execute(db);
      break;
    }
    case 'lifecycle.eolmapping': {
      const platform = await gen.ensureRow('dcim.platform', 'admin');
      await sql`INSERT INTO eol_mappings (id, numid, tenant_id, platform_id, source, product, cycle)
        VALUES (${id}, 900001, ${tenant}, ${platform}, 'endoflife_date', 'audit-os', '1.0')`.execute(db);
      break;
    }
    default:
      throw new Error(`${s.model.name} has no create route: add how its domain writes a row here.`);
  }
  const markers: Record<string, string> = { 'automation.deployrun': 'awx-main', 'lifecycle.eolmapping': 'audit-os' };
  const marker = markers[s.model.name] ?? 'audit-hook';
  expect((await find('admin', marker, s.model.name)).map((x) => x.id)).toContain(id);
  return id;
}
