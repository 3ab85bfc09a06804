// Templates PostgreSQL renders (pushdown.ts) against the engine rendering the same rows: byte for byte the same
// text, or the same error, over rows holding every kind of value the planner takes (None, empty text, quotes and
// non-ASCII, IPv4 and IPv6 primary addresses, custom fields of every JSON type, a foreign key to another tenant's
// row, a relation the caller may not view), in chunks of two so fallback chunks sit between pushed-down ones.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics, type Basics } from '../../test/helpers/inventory.ts';
import { systemContext, type RequestContext } from '../core/context.ts';
import { allModels, requireModel } from '../core/registry.ts';
import { exportLimits, prepareListRender } from './export.ts';
import { planPushdown } from './pushdown.ts';
import { templateEnvironment } from './environment.ts';
import { TemplateError } from './engine/index.ts';

let h: Harness;
let b: Basics;
const defaults = { ...exportLimits };

beforeAll(async () => {
  h = await startHarness();
  const alice = h.as('alice');
  b = await inventoryBasics(alice, ['eth0']);
  await created(alice, '/api/custom-fields/', { name: 'tier', type: 'text', object_types: ['dcim.device'] });
  const hidden = await created(h.as('bob'), '/api/sites/', { name: 'Hidden Beta Site', slug: 'hidden-beta-site' });
  const rows: Array<[string, Record<string, unknown>]> = [
    ['pd-01', { serial: 'S"1,<x>', platform: b.platform, custom_fields: { tier: 'gold' } }],
    ['pd-02', { serial: '', asset_tag: 'ÄT-2 ✓', position: null }],
    ['pd-03', { serial: 'naïve\ttab', custom_fields: { tier: '' } }],
    ['pd-04', { platform: b.platform }],
    ['pd-05', {}],
    ['pd-06', { serial: 'S6' }],
    ['pd-07', { serial: 'S7' }],
    ['pd-08', { serial: 'S8' }],
  ];
  const ids: Record<string, string> = {};
  for (const [name, extra] of rows) ids[name] = (await createDevice(alice, b, name, extra)).id;
  // Primary addresses: IPv4 on most, IPv6 only on one (its host text is left to the engine).
  for (const [name, address] of [['pd-01', '192.0.2.1/24'], ['pd-02', '192.0.2.2/32'], ['pd-05', '2001:db8::5/64'], ['pd-06', '192.0.2.6/24']] as const) {
    const iface = (await alice.get(`/api/interfaces/?device_id=${ids[name]}`)).json().results[0];
    const ip = await created(alice, '/api/ip-addresses/', { address, assigned_interface: iface.id });
    const key = address.includes(':') ? 'primary_ip6' : 'primary_ip4';
    expect((await alice.patch(`/api/devices/${ids[name]}/`, { [key]: ip.id })).statusCode).toBe(200);
  }
  // Values only a write below the API can leave: custom fields of other JSON types, a site of another tenant.
  const cf = (name: string, value: unknown) => sql`UPDATE devices SET custom_fields = ${JSON.stringify(value)}::jsonb WHERE id = ${ids[name]}`.execute(h.database.db);
  await cf('pd-04', { tier: 7, n: 0, flag: true });
  await cf('pd-06', { tier: 2.5, flag: false });
  await cf('pd-07', { tier: null, n: 12, list: [1, 2] });
  await cf('pd-08', { tier: ['a'] });
  await sql`UPDATE devices SET site_id = ${hidden.id} WHERE id = ${ids['pd-07']}`.execute(h.database.db);
}, 60_000);
afterAll(async () => {
  await h?.close();
});
afterEach(() => {
  Object.assign(exportLimits, defaults);
});

const QUERY = { name__isw: 'pd-' };

type Outcome = { text: string } | { error: string };

/** The render as the export route makes it (pushed down where the plan allows), and the queries it took. */
async function pushedDown(ctx: RequestContext, code: string, query: Record<string, string> = QUERY, objectType = 'dcim.device'): Promise<Outcome & { queries: number }> {
  const before = h.database.queryCount();
  try {
    const prepared = await prepareListRender(h.database.db, ctx, { objectType, templateCode: code, query, preview: false });
    let text = '';
    for await (const piece of prepared.stream({})) text += piece;
    return { text, queries: h.database.queryCount() - before };
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    return { error: err.message, queries: h.database.queryCount() - before };
  }
}

async function byEngine(ctx: RequestContext, code: string, query: Record<string, string> = QUERY, objectType = 'dcim.device'): Promise<Outcome> {
  const prepared = await prepareListRender(h.database.db, ctx, { objectType, templateCode: code, query, preview: false, engineOnly: true });
  try {
    return { text: await prepared.template.render(prepared.context) };
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    return { error: err.message };
  }
}

function planned(ctx: RequestContext, code: string): boolean {
  return planPushdown(ctx, requireModel('dcim.device'), templateEnvironment().compile(code, 't').statements()) !== null;
}

const TEMPLATES = [
  // The export bench's CSV.
  '{% for d in objects %}{{ d.name }},{{ d.site.name }},{{ d.role.name }},{{ d.platform.name if d.platform else "" }},{{ d.primary_ip|host if d.primary_ip else "" }},{{ d.serial }},{{ d.custom_fields.tier }}\n{% endfor %}',
  'name;tag;pos\n{% for d in objects %}{{ d.name ~ "/" ~ d.asset_tag }};{{ d.position }};{{ d.face }};{{ d.site.slug }};{{ d.rack.name }}\n{% endfor %}-- end --\n',
  '{% for d in objects %}{{ "P" if d.platform else "-" }}{{ "S" if d.serial else "-" }}{{ "T" if d.custom_fields.tier else "-" }}{{ "N" if d.custom_fields.n else "-" }}{{ "I" if d.primary_ip else "-" }}{{ "s" if d.site }}|{{ d.custom_fields.n }}|{{ d.custom_fields.flag }}|{{ d.custom_fields.missing }}|{{ d.custom_fields["tier"] }}\n{% endfor %}',
  '{% for d in objects %}{{ d.primary_ip.address if d.primary_ip else "none" }} {{ d.platform.slug }} {{ d.comments }}\n{% endfor %}',
  // No guard: a device without a primary address is an error of the `host` filter, either way.
  '{% for d in objects %}{{ d.name }} {{ d.primary_ip|host }}\n{% endfor %}',
  '{% for d in queryset %}\n{% endfor %}',
];

describe('pushed-down list renders', () => {
  it('plan the templates above, and leave to the engine what PostgreSQL cannot print as it does', () => {
    const ctx = systemContext(h.tenants.a);
    for (const code of TEMPLATES) expect(planned(ctx, code), code).toBe(true);
    for (const code of [
      '{% for d in objects %}{{ d }}{% endfor %}',
      '{% for d in objects %}{{ loop.index }}{% endfor %}',
      '{% for d in objects %}{% if d.serial %}x{% endif %}{% endfor %}',
      '{% for d in objects %}{{ d.site }}{% endfor %}',
      '{% for d in objects %}{{ d.site.region.name }}{% endfor %}',
      '{% for d in objects %}{{ d.created }}{% endfor %}',
      '{% for d in objects %}{{ d.name|upper }}{% endfor %}',
      '{% for d in objects %}{{ d.custom_fields.items }}{% endfor %}',
      '{% for d in objects %}{{ d.interfaces.count() }}{% endfor %}',
      '{% for d in objects %}x{% else %}none{% endfor %}',
      '{{ count }}{% for d in objects %}{% endfor %}',
      '{% for d in objects %}{% endfor %}{% for d in objects %}{% endfor %}',
    ]) expect(planned(ctx, code), code).toBe(false);
  });

  it('write the engine’s text, or fail as it does, in chunks with and without fallbacks', async () => {
    exportLimits.pushdownChunkRows = 2;
    const ctx = systemContext(h.tenants.a);
    for (const code of TEMPLATES) {
      const engine = await byEngine(ctx, code);
      const { queries: _q, ...pushed } = await pushedDown(ctx, code);
      expect(pushed, code).toEqual(engine);
    }
    // The first template's text, to see the values the comparison covered.
    const csv = await byEngine(ctx, TEMPLATES[0]!);
    expect('text' in csv && csv.text).toContain('pd-01,Site');
    expect('text' in csv && csv.text).toContain('pd-05,Site');
    expect('text' in csv && csv.text).toContain(',2001:db8::5,');
    expect('text' in csv && csv.text).toContain('pd-07,,');
  });

  it('print integers and booleans as the engine does (interfaces: mtu, enabled, their device)', async () => {
    exportLimits.pushdownChunkRows = 2;
    const ctx = systemContext(h.tenants.a);
    // Read below the API: one device points to another tenant's site, which the API's answer schema does not allow.
    const devices = (await sql<{ id: string }>`SELECT id FROM devices WHERE name LIKE 'pd-%' ORDER BY name`.execute(h.database.db)).rows.map((d) => d.id);
    const ifaces = (await h.as('alice').get(`/api/interfaces/?${devices.map((d) => `device_id=${d}`).join('&')}`)).json().results as Array<{ id: string }>;
    expect((await h.as('alice').patch(`/api/interfaces/${ifaces[0]!.id}/`, { mtu: 9216, enabled: false })).statusCode).toBe(200);
    expect((await h.as('alice').patch(`/api/interfaces/${ifaces[1]!.id}/`, { mtu: 1500 })).statusCode).toBe(200);
    const code = '{% for i in objects %}{{ i.device.name }} {{ i.name }} {{ i.enabled }} {{ i.mtu }} {{ "E" if i.enabled else "d" }}{{ "M" if i.mtu else "-" }} {{ i.mgmt_only }} {{ i.description }}\n{% endfor %}';
    const interfaces = requireModel('dcim.interface');
    expect(planPushdown(ctx, interfaces, templateEnvironment().compile(code, 't').statements())).not.toBeNull();
    const query = { device_id: devices } as unknown as Record<string, string>;
    const engine = await byEngine(ctx, code, query, 'dcim.interface');
    expect(engine).toEqual({ text: expect.stringMatching(/ eth0 False 9216 dM /) });
    const { queries: _q, ...pushed } = await pushedDown(ctx, code, query, 'dcim.interface');
    expect(pushed).toEqual(engine);
  });

  it('read a relation the caller may not view as None, as the engine does', async () => {
    exportLimits.pushdownChunkRows = 3;
    const base = systemContext(h.tenants.a);
    const platforms = requireModel('dcim.platform').permission;
    const permissions = new Set(allModels().map((m) => `${m.permission}.view`).filter((p) => p !== `${platforms}.view`));
    const ctx: RequestContext = { ...base, user: { ...base.user!, isSuperuser: false }, permissions };
    const code = '{% for d in objects %}{{ d.name }}:{{ d.platform.name }}:{{ "p" if d.platform else "-" }}\n{% endfor %}';
    expect(planned(ctx, code)).toBe(true);
    const engine = await byEngine(ctx, code);
    expect(engine).toEqual({ text: expect.stringContaining('pd-01::-') });
    const { queries: _q, ...pushed } = await pushedDown(ctx, code);
    expect(pushed).toEqual(engine);
  });

  it('read each chunk in one statement when every row is exact (no fallback)', async () => {
    exportLimits.pushdownChunkRows = 2;
    const ctx = systemContext(h.tenants.a);
    const code = '{% for d in objects %}{{ d.name }},{{ d.site.name }},{{ d.serial }}\n{% endfor %}';
    const query = { name__isw: 'pd-0', name__n: ['pd-07', 'pd-08'] } as unknown as Record<string, string>;
    const pushed = await pushedDown(ctx, code, query);
    expect(pushed).toMatchObject({ text: expect.stringMatching(/^pd-01,Site \d+,S"1,<x>\npd-02,Site \d+,\n/) });
    // Six rows in chunks of two: the count, three chunks and the empty read after them.
    expect(pushed.queries).toBeLessThanOrEqual(5);
    expect({ text: (pushed as { text: string }).text }).toEqual(await byEngine(ctx, code, query));
  });
});
