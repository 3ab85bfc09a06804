// The promises of the one write path, kept on every road to the data: field transforms on bulk calls, control
// characters refused at the boundary, the primary address of a device on interface moves and deletes, one
// allow-list for editable fields and bulk-update, permission before input, and a service's ports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { allModels, columnOf, requireModel } from '../src/core/registry.ts';
import { decryptSecret, isEncryptedSecret } from '../src/core/secrets.ts';
import { startHarness, type Harness } from './helpers/harness.ts';
import { BodyGenerator, isCreatable } from './helpers/valid-body.ts';
import '../src/models.ts';

let h: Harness;
let gen: BodyGenerator;
beforeAll(async () => {
  h = await startHarness();
  gen = new BodyGenerator(h);
});
afterAll(async () => {
  await h?.close();
});

async function stored(table: string, column: string, id: string): Promise<unknown> {
  const { rows } = await sql<{ v: unknown }>`SELECT ${sql.ref(column)} AS v FROM ${sql.table(table)} WHERE id = ${id}`.execute(h.database.db);
  return rows[0]?.v;
}

describe('field transforms on every write path', () => {
  // Every secret field of every model, set through a single PATCH, bulk-update and the NetBox list form: stored
  // encrypted, and decrypting to what was sent.
  const secretFields = allModels().flatMap((m) =>
    Object.entries(m.fields)
      .filter(([, f]) => f.secret && f.transform && (f.kind === 'string' || f.kind === 'text'))
      .map(([key, f]) => ({ model: m, key, column: columnOf(key, f) })),
  );

  it('covers the secret fields the issue names', () => {
    const names = secretFields.map((s) => s.model.name);
    for (const m of ['extras.webhook', 'automation.automationtarget', 'dcim.devicecredential', 'routing.keychain']) expect(names).toContain(m);
  });

  for (const { model, key, column } of secretFields) {
    it(`${model.name}.${key}: encrypted through PATCH, bulk-update and the list form`, async () => {
      expect(isCreatable(model)).toBe(true);
      const id = await gen.ensureRow(model.name, 'admin', true);
      const paths: Array<[string, (value: string) => Promise<{ statusCode: number; body: string }>]> = [
        ['PATCH', (v) => h.as('admin').patch(`${model.path}${id}/`, { [key]: v })],
        ['bulk-update', (v) => h.as('admin').post(`${model.path}bulk-update/`, { ids: [id], fields: { [key]: v } })],
        ['list PATCH', (v) => h.as('admin').patch(model.path, [{ id, [key]: v }])],
      ];
      for (const [name, send] of paths) {
        const plain = `s3cret-${name.replace(/\W/g, '')}`;
        const res = await send(plain);
        expect(res.statusCode, `${name}: ${res.body}`).toBe(200);
        expect(res.body).not.toContain(plain);
        const value = await stored(model.table, column, id);
        expect(isEncryptedSecret(value), `${name} stored ${String(value)}`).toBe(true);
        expect(decryptSecret(String(value))).toBe(plain);
      }
    });
  }

  it('a password set by bulk-update signs in; a keychain key set by bulk-update is revealed', async () => {
    const users = await h.as('admin').get('/api/users/?username=alice');
    const alice = users.json().results[0].id as string;
    const res = await h.as('admin').post('/api/users/bulk-update/', { ids: [alice], fields: { password: 'a-new-password-1' } });
    expect(res.statusCode, res.body).toBe(200);
    const login = await h.app.inject({ method: 'POST', url: '/api/auth/login/', payload: { username: 'alice', password: 'a-new-password-1' } });
    expect(login.statusCode, login.body).toBe(200);
    // The length rule of a single write holds in bulk too.
    const short = await h.as('admin').post('/api/users/bulk-update/', { ids: [alice], fields: { password: 'short' } });
    expect(short.statusCode).toBe(400);
    expect(short.json()).toHaveProperty('password');

    const kc = await h.as('admin').post('/api/routing/keychains/', { name: 'bulk-kc', key: 'first-key' });
    expect(kc.statusCode, kc.body).toBe(201);
    const bulk = await h.as('admin').post('/api/routing/keychains/bulk-update/', { ids: [kc.json().id], fields: { key: 'bulk-key' } });
    expect(bulk.statusCode, bulk.body).toBe(200);
    const revealed = await h.as('admin').post(`/api/routing/keychains/${kc.json().id}/reveal-psk/`);
    expect(revealed.statusCode, revealed.body).toBe(200);
    expect(revealed.json()).toEqual({ psk: 'bulk-key' });
  });
});

describe('control characters are refused at the boundary', () => {
  const lists = allModels().filter((m) => m.operations.list);

  it('every list: ?q= and a filter holding NUL answer 400 naming the parameter', async () => {
    for (const model of lists) {
      const q = await h.as('admin').get(`${model.path}?q=%00`);
      expect(q.statusCode, `${model.path}?q=%00: ${q.body}`).toBe(400);
      expect(q.json().q?.[0], model.path).toMatch(/NUL/);
      const filter = await h.as('admin').get(`${model.path}?id=%00`);
      expect(filter.statusCode, `${model.path}?id=%00: ${filter.body}`).toBe(400);
      expect(filter.json()).toHaveProperty('id');
    }
    for (const url of ['/api/devices/?site=%00', '/api/devices/?name=a%01b', '/api/search/?q=%00']) {
      const res = await h.as('admin').get(url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
    }
  });

  it('NUL in a JSON string, a custom-field value or a key is a 400 naming the field; nothing is written', async () => {
    const before = await h.as('alice').get('/api/tags/?limit=1');
    const name = await h.as('alice').post('/api/tags/', { name: 'bad\u0000tag', slug: 'bad-tag' });
    expect(name.statusCode).toBe(400);
    expect(name.json().name[0]).toMatch(/NUL/);
    const site = await h.as('alice').post('/api/sites/', { name: 'nul-site', slug: 'nul-site', custom_fields: { note: 'x\u0000y' } });
    expect(site.statusCode).toBe(400);
    expect(site.json()).toHaveProperty(['custom_fields.note']);
    const key = await h.as('alice').post('/api/tags/bulk-update/', { ids: [], fields: { 'desc\u0000ription': 'x' } });
    expect(key.statusCode).toBe(400);
    const bell = await h.as('alice').post('/api/tags/', { name: 'bell\u0007', slug: 'bell' });
    expect(bell.statusCode).toBe(400);
    expect(bell.json().name[0]).toMatch(/U\+0007/);
    expect((await h.as('alice').get('/api/tags/?limit=1')).json().count).toBe(before.json().count);
    // Multi-line text keeps its tabs and line breaks.
    const text = await h.as('alice').post('/api/tags/', { name: 'multi-line', slug: 'multi-line', description: 'a\tb\r\nc' });
    expect(text.statusCode, text.body).toBe(201);
  });
});

describe("a device's primary address stays on the device", () => {
  async function deviceWithPrimary(name: string): Promise<{ device: string; iface: string; ip: string; other: string }> {
    const device = await gen.create(requireModel('dcim.device'), 'admin', { name });
    const other = await gen.create(requireModel('dcim.device'), 'admin', { name: `${name}-other` });
    const iface = await h.as('admin').post('/api/interfaces/', { device, name: 'Ethernet1', type: '1000base-t' });
    expect(iface.statusCode, iface.body).toBe(201);
    const ip = await h.as('admin').post('/api/ip-addresses/', { address: `10.${name.length}.${name.charCodeAt(0)}.1/24`, assigned_interface: iface.json().id });
    expect(ip.statusCode, ip.body).toBe(201);
    const set = await h.as('admin').patch(`/api/devices/${device}/`, { primary_ip4: ip.json().id });
    expect(set.statusCode, set.body).toBe(200);
    return { device, iface: iface.json().id, ip: ip.json().id, other };
  }

  it('moving the interface that holds it is refused with a 400 naming device, on single and bulk calls', async () => {
    const d = await deviceWithPrimary('pmove');
    const single = await h.as('admin').patch(`/api/interfaces/${d.iface}/`, { device: d.other });
    expect(single.statusCode).toBe(400);
    expect(single.json().device[0]).toMatch(/primary IPv4 of pmove/);
    const bulk = await h.as('admin').post('/api/interfaces/bulk-update/', { ids: [d.iface], fields: { device: d.other } });
    expect(bulk.statusCode).toBe(400);
    expect(Object.values(bulk.json()).flat().join(' ')).toMatch(/primary IPv4 of pmove/);
    const list = await h.as('admin').patch('/api/interfaces/', [{ id: d.iface, device: d.other }]);
    expect(list.statusCode).toBe(400);
    expect((await h.as('admin').get(`/api/interfaces/${d.iface}/`)).json().device.id).toBe(d.device);
    // Another interface (without the primary address) moves freely.
    const spare = await h.as('admin').post('/api/interfaces/', { device: d.device, name: 'Ethernet2', type: '1000base-t' });
    expect((await h.as('admin').patch(`/api/interfaces/${spare.json().id}/`, { device: d.other })).statusCode).toBe(200);
  });

  it('deleting the interface or the address clears the primary address, in the change log', async () => {
    for (const how of ['interface', 'address', 'bulk interface'] as const) {
      const d = await deviceWithPrimary(`pdel-${how.replace(' ', '-')}`);
      const res =
        how === 'interface'
          ? await h.as('admin').delete(`/api/interfaces/${d.iface}/`)
          : how === 'address'
            ? await h.as('admin').delete(`/api/ip-addresses/${d.ip}/`)
            : await h.as('admin').post('/api/interfaces/bulk-delete/', { ids: [d.iface] });
      expect(res.statusCode, `${how}: ${res.body}`).toBeLessThan(300);
      const device = (await h.as('admin').get(`/api/devices/${d.device}/`)).json();
      expect(device.primary_ip4, how).toBeNull();
      const changes = (await h.as('admin').get(`/api/changes/?object_id=${d.device}&action=update`)).json().results as Array<{ before: Record<string, unknown>; after: Record<string, unknown> }>;
      const cleared = changes.find((c) => c.before.primary_ip4 && c.after.primary_ip4 === null);
      expect(cleared, `${how}: ${JSON.stringify(changes)}`).toBeDefined();
    }
  });
});

describe('editable fields and bulk-update share one allow-list', () => {
  it("a read-only token's editable-fields lists no model, and no model's fields", async () => {
    const res = await h.as('aliceRO').get('/api/editable-fields/');
    expect(res.statusCode).toBe(200);
    expect(res.json().models).toEqual([]);
    expect((await h.as('aliceRO').get('/api/editable-fields/?model=extras.tag')).statusCode).toBe(403);
    expect((await h.as('alice').get('/api/editable-fields/')).json().models.length).toBeGreaterThan(0);
  });

  it('every model: bulk-update accepts each listed field and refuses none of them as not editable', async () => {
    for (const model of allModels().filter((m) => m.operations.update)) {
      const listed = (await h.as('admin').get(`/api/editable-fields/?model=${model.name}`)).json() as Array<{ key: string; kind: string }>;
      const keys = new Set(listed.map((f) => f.key));
      for (const [key, field] of Object.entries(model.fields)) {
        if (field.readOnly || field.kind === 'custom_fields') continue;
        expect(keys.has(key), `${model.name}.${key} is writable but not listed`).toBe(true);
      }
      for (const f of listed) {
        if (f.kind === 'secret') expect(model.fields[f.key]!.writeOnly || model.fields[f.key]!.secret).toBe(true);
      }
    }
  });
});

describe('permission comes before input', () => {
  it('a caller who may not act gets 403 whatever it sent', async () => {
    const job = '00000000-0000-7000-8000-000000000001';
    for (const [url, body] of [
      [`/api/jobs/not-an-id/cancel/`, {}],
      [`/api/jobs/${job}/cancel/`, { unexpected: '\u0000' }],
      ['/api/tags/bulk-update/', { ids: 'nope' }],
      ['/api/tags/', { name: 'x\u0000' }],
    ] as const) {
      const res = await h.as('viewer').post(url, body);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(403);
    }
    const badJson = await h.app.inject({ method: 'POST', url: `/api/jobs/${job}/cancel/`, headers: { authorization: `Token ${h.tokens.viewer}`, 'content-type': 'application/json' }, payload: '{not json' });
    expect(badJson.statusCode, badJson.body).toBe(403);
    const detail = await h.as('nobody').get('/api/tags/not-an-id/');
    expect(detail.statusCode).toBe(403);
  });
});

describe("a service's ports", () => {
  it('clearing protocol_ports clears the ports; sctp ports are kept on services made from templates', async () => {
    const device = await gen.create(requireModel('dcim.device'), 'admin', { name: 'svc-ports' });
    const svc = await h.as('admin').post('/api/services/', { device, name: 'ssh', protocol_ports: { tcp: [22] } });
    expect(svc.statusCode, svc.body).toBe(201);
    expect(svc.json()).toMatchObject({ protocol: 'tcp', ports: [22] });
    const cleared = await h.as('admin').patch(`/api/services/${svc.json().id}/`, { protocol_ports: {} });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json()).toMatchObject({ ports: [], protocol_ports: {} });
    expect((await h.as('admin').get(`/api/services/${svc.json().id}/`)).json()).toMatchObject({ ports: [], protocol_ports: {} });

    const deviceType = (await h.as('admin').get(`/api/devices/${device}/`)).json().device_type.id as string;
    const tpl = await h.as('admin').post('/api/device-type-services/', { device_type: deviceType, name: 'diameter', protocol_ports: { sctp: [3868] } });
    expect(tpl.statusCode, tpl.body).toBe(201);
    const made = await gen.create(requireModel('dcim.device'), 'admin', { name: 'svc-sctp', device_type: deviceType });
    const services = (await h.as('admin').get(`/api/services/?device_id=${made}`)).json().results as Array<Record<string, unknown>>;
    expect(services.find((s) => s.name === 'diameter')).toMatchObject({ protocol: 'sctp', ports: [3868], protocol_ports: { sctp: [3868] } });
  });
});

describe('one list envelope', () => {
  it('hand-written lists answer {count, next, previous, results} like the generic ones', async () => {
    const device = await gen.create(requireModel('dcim.device'), 'admin', { name: 'envelope-dev' });
    for (const url of ['/api/jobs/', '/api/jobs/schedules/', '/api/compliance/violations/', '/api/search/?q=envelope', '/api/system/services/workers/', `/api/devices/${device}/config-pushes/`, '/api/tags/']) {
      const res = await h.as('admin').get(url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
      const body = res.json() as Record<string, unknown>;
      expect(Object.keys(body).sort(), url).toEqual(expect.arrayContaining(['count', 'next', 'previous', 'results']));
      expect(Array.isArray(body.results), url).toBe(true);
      expect(typeof body.count, url).toBe('number');
    }
  });
});

describe('creating several objects in one call', () => {
  it('POST <list> with a JSON array creates each through the write path, all or none, errors naming the index', async () => {
    const before = (await h.as('alice').get('/api/tags/?limit=1')).json().count as number;
    const made = await h.as('alice').post('/api/tags/', [{ name: 'list-a', slug: 'list-a' }, { name: 'list-b', slug: 'list-b' }]);
    expect(made.statusCode, made.body).toBe(201);
    expect(made.json().map((t: { slug: string }) => t.slug)).toEqual(['list-a', 'list-b']);
    const bad = await h.as('alice').post('/api/tags/', [{ name: 'list-c', slug: 'list-c' }, { name: 'list-d', slug: 'not a slug' }]);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toHaveProperty(['[1].slug']);
    // A clash with a row made earlier in the same call rolls everything back.
    const clash = await h.as('alice').post('/api/tags/', [{ name: 'list-e', slug: 'list-e' }, { name: 'list-e', slug: 'list-e2' }]);
    expect(clash.statusCode).toBeGreaterThanOrEqual(400);
    expect(clash.statusCode).toBeLessThan(500);
    expect((await h.as('alice').get('/api/tags/?limit=1')).json().count).toBe(before + 2);
    const changes = await h.as('alice').get(`/api/changes/?object_id=${made.json()[0].id}&action=create`);
    expect(changes.json().count).toBe(1);
    expect((await h.as('viewer').post('/api/tags/', [{ name: 'x', slug: 'x' }])).statusCode).toBe(403);
  });
});

describe('relations written by slug or unique name', () => {
  it('a status by slug and a VRF by name are accepted on create, update and bulk; ids still work; unknown keys are a 400', async () => {
    const vrf = await h.as('alice').post('/api/vrfs/', { name: 'by-name-vrf' });
    expect(vrf.statusCode, vrf.body).toBe(201);
    const p = await h.as('alice').post('/api/prefixes/', { prefix: '10.123.0.0/16', status: 'container', vrf: 'by-name-vrf' });
    expect(p.statusCode, p.body).toBe(201);
    expect(p.json()).toMatchObject({ status: { display: 'Container' }, vrf: { id: vrf.json().id } });
    const patched = await h.as('alice').patch(`/api/prefixes/${p.json().id}/`, { status: 'reserved' });
    expect(patched.json().status.display).toBe('Reserved');
    const bulk = await h.as('alice').post('/api/prefixes/bulk-update/', { ids: [p.json().id], fields: { status: 'deprecated' } });
    expect(bulk.statusCode, bulk.body).toBe(200);
    expect((await h.as('alice').get(`/api/prefixes/${p.json().id}/`)).json().status.display).toBe('Deprecated');
    const unknown = await h.as('alice').post('/api/prefixes/', { prefix: '10.124.0.0/16', status: 'no-such-status' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().status[0]).toBe('No status with slug "no-such-status": send its id or an existing slug.');
    // Another tenant's VRF name reads as one that does not exist.
    expect((await h.as('bob').post('/api/prefixes/', { prefix: '10.125.0.0/16', vrf: 'by-name-vrf' })).json()).toHaveProperty('vrf');
  });
});

describe('one validator: every hand-written route is checked by Fastify against its TypeBox schema', () => {
  it('only the generic model routes (and token create, a model write) leave input to the registry validator', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { join, relative } = await import('node:path');
    const root = join(import.meta.dirname, '..', 'src');
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    const using = files.filter((f) => /\.\.\.registryValidated\b/.test(readFileSync(join(root, f), 'utf8'))).map((f) => relative(root, join(root, f)));
    expect(using.sort()).toEqual(['core/auth/routes.ts', 'core/crud/routes.ts']);
    // Nor does any route switch Fastify's validation off by hand.
    const ownCompiler = files.filter((f) => f !== join('core', 'http.ts') && /validatorCompiler\s*:/.test(readFileSync(join(root, f), 'utf8')));
    expect(ownCompiler).toEqual([]);
  });

  it('bad input to hand-written routes is a 400 naming the parameter or field, after the permission check', async () => {
    const prefix = await gen.create(requireModel('ipam.prefix'), 'admin', { prefix: '10.250.0.0/24' });
    const device = await gen.create(requireModel('dcim.device'), 'admin', { name: 'validated-dev' });
    const cases: Array<[method: 'get' | 'post', url: string, body: unknown, field: string]> = [
      ['get', '/api/jobs/?limit=abc', undefined, 'limit'],
      ['get', '/api/jobs/?sort=name', undefined, 'sort'],
      ['get', '/api/compliance/violations/?object_type=dcim.site', undefined, 'object_type'],
      ['get', '/api/search/?q=x&bogus=1', undefined, 'bogus'],
      ['get', `/api/prefixes/${prefix}/available-ips/?limit=0`, undefined, 'limit'],
      ['get', `/api/devices/${device}/config-pushes/?limit=5000`, undefined, 'limit'],
      ['get', `/api/devices/${device}/render/?archive=zip`, undefined, 'archive'],
      ['post', '/api/export-templates/preview/', { object_type: 'dcim.device', template_code: 5 }, 'template_code'],
      ['post', `/api/devices/${device}/deploy/`, { target: 'x', colour: 'red' }, 'colour'],
      ['post', `/api/prefixes/${prefix}/available-ips/`, [1], 'non_field_errors'],
    ];
    for (const [method, url, body, field] of cases) {
      const res = body === undefined ? await h.as('admin')[method](url) : await h.as('admin').post(url, body);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
      expect(Object.keys(res.json() as object), `${url}: ${res.body}`).toContain(field);
    }
    // The same bad bodies from a caller who may not act: 403, whatever was sent.
    for (const [url, body] of [
      ['/api/export-templates/preview/', { object_type: 'dcim.device', template_code: 5 }],
      [`/api/devices/${device}/deploy/`, { target: 'x', colour: 'red' }],
    ] as const) {
      expect((await h.as('viewer').post(url, body)).statusCode, url).toBe(403);
    }
  });
});

describe('one write path for objects people can create', () => {
  /** Every domain source file (src/ without core, migrations and tests): its path under src/ and its text. */
  async function domainSources(): Promise<Array<{ path: string; text: string }>> {
    const { readdirSync, readFileSync, statSync } = await import('node:fs');
    const { join, relative, resolve } = await import('node:path');
    const src = resolve(import.meta.dirname, '../src');
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const full = join(dir, name);
        if (statSync(full).isDirectory()) return ['core', 'migrations'].includes(name) ? [] : files(full);
        return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [full] : [];
      });
    return files(src).map((file) => ({ path: relative(src, file), text: readFileSync(file, 'utf8') }));
  }

  /**
   * The only tables a domain still inserts into with its own SQL, each with why; none is a model the API creates.
   * Objects are written by src/core (createRowInTx, bulk-update, insertRows for rows made from templates, BulkLoad
   * for demo data), and records the server keeps about a tenant's objects by src/core/records.ts
   * (recordTable().append), which sets ids, numbers and the tenant.
   */
  const OWN_SQL: Record<string, string> = {
    schedule_claims: "a scheduled run's claim, deployment-wide: one row per run whoever claims it first (ON CONFLICT decides)",
    upgrade_step_acks: 'deployment-wide acknowledgements of after-upgrade steps',
    user_preferences: "a user's own UI preferences, upserted, no tenant",
    eol_products: 'the public end-of-life catalog, the same for every tenant',
    webhook_outbox: "the write path's webhook step: the changes joined with their tenant's webhooks, one statement in the writer's transaction",
    search_index: "the write path's search step: the text of the tables' trigger functions and of the full rebuild",
  };

  it('no domain inserts any other row by hand: tenant records are appended through the core', async () => {
    const found: string[] = [];
    const seen = new Set<string>();
    for (const { path, text } of await domainSources()) {
      for (const m of text.matchAll(/INSERT\s+INTO\s+("?[a-z_]+"?|\$\{)/gi)) {
        seen.add(m[1]!);
        if (!(m[1]! in OWN_SQL)) found.push(`${path}: ${m[1]}`);
      }
    }
    expect(found).toEqual([]);
    for (const table of Object.keys(OWN_SQL)) expect(seen, `${table} is no longer inserted by hand: take it off the list`).toContain(table);
    const creatable = new Set(allModels().filter((m) => m.operations.create).map((m) => m.table));
    expect(Object.keys(OWN_SQL).filter((t) => creatable.has(t))).toEqual([]);
  });

  /**
   * Every UPDATE and DELETE a domain still writes by hand (file: table), each with why. None changes what a person
   * chose on an object: they are records the server keeps, derived columns, join rows, and the effects a model's
   * hooks carry to other rows inside the write service's own transaction. End-of-life mappings left this list when
   * they became objects written through the core.
   */
  const OWN_CHANGES: Record<string, string> = {
    'automation/deploy.ts: deploy_runs': "a deploy run's status as the worker polls it (a record, src/core/records.ts)",
    'compliance/service.ts: compliance_violations': "an evaluation's violations replace the last ones (records)",
    'dcim/cabling.ts: cables': "a port's deletion takes the cables left without an end, change-logged beside (a cascade)",
    'dcim/cabling.ts: cable_terminations': "the deleted ports' cable ends (join rows)",
    'dcim/cabling.ts: tagged_items': "the cascaded cables' tags (join rows)",
    'dcim/interface-wireless.ts: interfaces': "a radio channel's frequency and width: derived columns, filled in the write's own hooks before the change log",
    'dcim/rack-reservation-models.ts: racks': "a rack type's attributes copied onto the rack: derived columns, in the write's own hooks before the change log",
    'extras/models.ts: ${': "a custom field renamed, narrowed or deleted moves or drops its stored values (the field's hooks)",
    'extras/statuses.ts: ${': "a new row's default status, in its afterCreate hook before the change log is written",
    'extras/webhook-delivery.ts: webhook_outbox': "the outbox's deliveries: retried, then removed",
    'extras/webhook-outbox.ts: webhook_outbox': "the outbox's claims",
    'ipam/hierarchy.ts: prefixes': "prefix depth and children: derived columns",
    'ipam/utilization.ts: prefixes': "prefix utilisation: a derived column",
    'jobs/claim.ts: jobs': "a job record claimed by a worker",
    'jobs/record.ts: jobs': "a job record's progress and outcome",
    'jobs/service.ts: jobs': "a job record's cancel request",
    'jobs/schedule-claims.ts: schedule_claims': "old claims of scheduled runs pruned",
    'lifecycle/service.ts: eol_products': 'the public end-of-life catalog, the same for every tenant',
    'organization/contact-cleanup.ts: contact_assignments': "a deleted object's contact assignments, change-logged beside (a cascade)",
    'organization/contact-cleanup.ts: tagged_items': "the cascaded contact assignments' tags (join rows)",
    'monitoring/runner.ts: check_results': 'results past their retention (records)',
    'monitoring/runner.ts: check_assignments': "each check's schedule and state, kept by the runner",
    'monitoring/service.ts: check_assignments': 'checks a monitored service no longer wants (reconciled in its hooks)',
    'monitoring/service.ts: services': "a service's ports normalised and its address released when the address moves or goes (hooks)",
    'monitoring/service.ts: ${': "references to addresses being deleted cleared first, as ON DELETE SET NULL would a moment later",
    'search/indexer.ts: search_index': "the write path's search step",
    'search/triggers.ts: search_index': "the write path's search step (the triggers' text)",
    'upgrade/engine/verify.ts: tokens': "the upgrade check's own temporary token",
    'upgrade/job-write.ts: jobs': "the upgrade's job record",
    'install/step-notes.ts: upgrade_step_baseline': 'deployment-wide upgrade bookkeeping',
  };

  it('no domain updates or deletes other rows by hand: objects change through the core', async () => {
    const found = new Set<string>();
    for (const { path, text } of await domainSources()) {
      // UPDATE <table> [alias] SET, DELETE FROM <table>: statements, not prose that mentions one.
      for (const m of text.matchAll(/UPDATE\s+("?[a-z_]+"?|\$\{)[^\n`]*?\sSET\s|DELETE\s+FROM\s+("?[a-z_]+"?|\$\{)/g)) {
        found.add(`${path}: ${m[1] ?? m[2]}`);
      }
    }
    expect([...found].filter((k) => !(k in OWN_CHANGES)).sort()).toEqual([]);
    for (const key of Object.keys(OWN_CHANGES)) expect(found, `${key} is no longer written by hand: take it off the list`).toContain(key);
  });

  it("a device's interfaces, ports and services made from its type go through the core: change log and custom-field defaults", async () => {
    const db = h.database.db;
    await h.as('admin').post('/api/custom-fields/', { name: 'patch_owner', type: 'text', object_types: ['dcim.rearport', 'dcim.interface'], default: 'noc' });
    const type = await gen.create(requireModel('dcim.devicetype'), 'admin', { model: 'Panel-2', slug: 'panel-2' });
    await gen.create(requireModel('dcim.interfacetemplate'), 'admin', { device_type: type, name: 'mgmt0', type: '1000base-t' });
    const rear = await gen.create(requireModel('dcim.rearporttemplate'), 'admin', { device_type: type, name: 'Rear1', type: 'mpo', positions: 2 });
    await gen.create(requireModel('dcim.frontporttemplate'), 'admin', { device_type: type, name: 'Front1', type: 'lc', rear_port: rear, rear_port_position: 1 });
    const device = await gen.create(requireModel('dcim.device'), 'admin', { name: 'made-from-type', device_type: type });
    const { rows } = await sql<{ object_type: string; object_repr: string }>`SELECT object_type, object_repr FROM object_changes
      WHERE action = 'create' AND object_type IN ('dcim.interface', 'dcim.rearport', 'dcim.frontport') AND object_repr LIKE 'made-from-type%' ORDER BY object_type`.execute(db);
    expect(rows).toEqual([
      { object_type: 'dcim.frontport', object_repr: 'made-from-type › Front1' },
      { object_type: 'dcim.interface', object_repr: 'made-from-type › mgmt0' },
      { object_type: 'dcim.rearport', object_repr: 'made-from-type › Rear1' },
    ]);
    const rearRow = (await h.as('admin').get(`/api/rear-ports/?device_id=${device}`)).json().results[0];
    expect(rearRow.custom_fields).toMatchObject({ patch_owner: 'noc' });
    const front = (await h.as('admin').get(`/api/front-ports/?device_id=${device}`)).json().results[0];
    expect(front).toMatchObject({ name: 'Front1', rear_port_position: 1, rear_port: { id: rearRow.id } });
  });

  it("the records the server derives go through the core too: a new tenant's statuses, a monitored service's checks", async () => {
    const db = h.database.db;
    const tenant = (await h.as('admin').post('/api/tenants/', { name: 'Derived Co', slug: 'derived-co' })).json().id as string;
    const { rows: statuses } = await sql<{ object_repr: string; username: string }>`SELECT object_repr, username FROM object_changes
      WHERE action = 'create' AND object_type = 'extras.status' AND tenant_id = ${tenant} ORDER BY object_repr`.execute(db);
    expect(statuses.map((r) => r.object_repr)).toEqual(['Active', 'Connected', 'Container', 'Decommissioned', 'Decommissioning', 'Deprecated', 'Deprovisioning', 'Offline', 'Planned', 'Provisioning', 'Reserved']);
    expect(new Set(statuses.map((r) => r.username))).toEqual(new Set(['system']));

    const device = await gen.create(requireModel('dcim.device'), 'admin', { name: 'derived-checks' });
    const iface = await gen.create(requireModel('dcim.interface'), 'admin', { device, name: 'eth0' });
    const ip = await gen.create(requireModel('ipam.ipaddress'), 'admin', { address: '192.0.2.77/24', assigned_interface: iface });
    expect((await h.as('admin').patch(`/api/devices/${device}/`, { primary_ip4: ip })).statusCode).toBe(200);
    const service = (await h.as('admin').post('/api/services/', { device, name: 'https', protocol_ports: { tcp: [8443] }, monitored: true })).json();
    expect(service.check_count).toBe(1);
    const assignment = (await h.as('admin').get(`/api/check-assignments/?service_id=${service.id}`)).json().results[0];
    const { rows: checks } = await sql<{ object_type: string; object_repr: string }>`SELECT object_type, object_repr FROM object_changes
      WHERE action = 'create' AND object_id IN (${assignment.id}, ${assignment.template.id}) ORDER BY object_type`.execute(db);
    expect(checks.map((r) => r.object_type)).toEqual(['monitoring.checkassignment', 'monitoring.checktemplate']);
    expect(checks[1]!.object_repr).toBe('TCP 8443');
    // The template is found by search, as anything made through the core is.
    const hits = (await h.as('admin').get('/api/search/?q=TCP%208443')).json().results as Array<{ object_type: string }>;
    expect(hits.map((x) => x.object_type)).toContain('monitoring.checktemplate');
  });
});
