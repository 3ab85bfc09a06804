// Sandbox probes: escape attempts against export templates rendered over live rows. Each must render harmlessly or
// fail with a template error (400); none may read a secret, another tenant's row, a JavaScript internal or the
// process. Every secret and foreign value below carries the marker SECRET, so one assertion covers them all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics } from '../../test/helpers/inventory.ts';

let h: Harness;
let bobDevice: string;
let bobInterface: string;
let passwordHash: string;
const ENV_CANARY = 'env-SECRET-5150';

beforeAll(async () => {
  process.env.CAIRN_PROBE_CANARY = ENV_CANARY;
  h = await startHarness();
  const alice = h.as('alice');
  const b = await inventoryBasics(alice, ['eth0']);
  const device = await createDevice(alice, b, 'leaf1', { custom_fields: {} });
  await created(alice, '/api/device-credentials/', { device: device.id, username: 'netops', password: 'pw-SECRET-4413' });
  const kc = await created(alice, '/api/routing/keychains/', { name: 'kc1', key: 'kc-SECRET-7781' });
  await sql`INSERT INTO bgp_peer_groups (id, numid, tenant_id, name, keychain_id) VALUES (gen_random_uuid(), 900, ${h.tenants.a}, 'pg1', ${kc.id})`.execute(h.database.db);
  await created(alice, '/api/webhooks/', { name: 'wh', payload_url: 'https://example.com/hook', secret: 'wh-SECRET-9902' });
  await created(alice, '/api/journal-entries/', { object_type: 'dcim.device', object_id: device.id, comments: 'note' });
  const bob = h.as('bob');
  const bb = await inventoryBasics(bob, ['beta-SECRET-if']);
  bobDevice = (await createDevice(bob, bb, 'beta-SECRET-box')).id;
  bobInterface = (await bob.get(`/api/interfaces/?device=${bobDevice}`)).json().results[0].id;
  const { rows } = await sql<{ h: string }>`SELECT password_hash AS h FROM users WHERE username = 'alice'`.execute(h.database.db);
  passwordHash = rows[0]!.h;
});
afterAll(async () => {
  delete process.env.CAIRN_PROBE_CANARY;
  await h?.close();
});

type Probe = [template: string, objectType?: string, expected?: string | RegExp];

const D = '(objects|first)';
function probes(): Probe[] {
  return [
    // Python-style dunder chains
    ["{{ ''.__class__.__mro__[1].__subclasses__() }}"],
    ["{{ ''.__class__ }}"],
    ['{{ objects.__class__ }}'],
    [`{{ ${D}.__class__.__init__.__globals__ }}`],
    [`{{ ${D}.__dict__ }}`],
    [`{{ ${D}._meta }}`],
    [`{{ ${D}.__class__.objects.all() }}`],
    ['{{ {}.__class__.__base__.__subclasses__() }}'],
    ['{{ [].pop.__self__ }}'],
    ["{{ ''.join.__globals__ }}"],
    ['{{ self.__init__.__globals__ }}'],
    [`{{ ${D}.site.__class__ }}`],
    [`{{ ${D}.custom_fields.__class__ }}`],
    [`{{ ${D}.primary_ip.__class__ }}`],
    // JavaScript constructor / prototype chains and the proxies' own properties
    [`{{ ${D}.constructor }}`],
    [`{{ ${D}.constructor.constructor('return process')() }}`],
    [`{{ ${D}['constructor'] }}`],
    [`{{ ${D}.__proto__ }}`],
    [`{{ ${D}.prototype }}`],
    ['{{ objects.constructor }}'],
    ['{{ objects.getItem(0) }}'],
    ['{{ objects.iterate() }}'],
    [`{{ ${D}.row }}`],
    [`{{ ${D}.group.session.ctx }}`],
    [`{{ ${D}.getAttr('row') }}`],
    [`{{ ${D}.site.constructor.name }}`],
    [`{{ ${D}.custom_fields.constructor }}`],
    [`{{ ${D}.interfaces.constructor }}`],
    [`{{ ${D}.interfaces.rel }}`],
    [`{{ ${D}.interfaces.spec }}`],
    [`{{ ${D}.interfaces.group }}`],
    ['{{ process }}{{ require }}{{ globalThis }}{{ this }}{{ config }}{{ request }}{{ settings }}'],
    // attr / format / filter tricks
    [`{{ ${D}|attr('__class__') }}`],
    [`{{ ${D}|attr('row') }}`],
    [`{{ ${D}|attr('constructor') }}`],
    [`{{ '{0.__class__}'.format(${D}) }}`],
    [`{{ '{0.row}'.format(${D}) }}`],
    [`{{ '{0.constructor}'.format(${D}) }}`],
    ["{{ objects|map(attribute='__class__')|list }}"],
    ["{{ objects|map(attribute='row')|list }}"],
    ["{{ objects|selectattr('row')|list }}"],
    ["{{ objects|sort(attribute='constructor')|first }}"],
    ["{{ objects|groupby('__class__') }}"],
    [`{{ namespace(x=${D}).x.row }}`],
    // cycler / joiner / namespace / range / lipsum internals
    ['{{ cycler.__init__.__globals__ }}'],
    ['{{ cycler(1, 2).__class__ }}'],
    ['{{ joiner.__init__.__globals__.os }}'],
    ['{{ namespace.__init__.__globals__ }}'],
    ['{{ namespace(a=1).__class__.__base__ }}'],
    ['{{ range.__self__ }}{{ range.constructor }}'],
    ["{{ lipsum.__globals__['os'].popen('id').read() }}"],
    ['{{ lipsum.__globals__ }}'],
    ['{{ dict.__class__ }}{{ dict(a=1).__class__ }}'],
    // model methods and query internals
    [`{{ ${D}.delete() }}`],
    [`{{ ${D}.save() }}`],
    [`{{ ${D}.get_status_display() }}`],
    [`{{ ${D}.interfaces.model }}`],
    [`{{ ${D}.interfaces.query }}`],
    [`{{ ${D}.interfaces.raw('SELECT password_hash FROM users') }}`],
    [`{{ ${D}.interfaces.update(name='x') }}`],
    [`{{ ${D}.interfaces.delete() }}`],
    [`{{ ${D}.interfaces.create(name='x') }}`],
    [`{{ ${D}.interfaces.values('name') }}`],
    [`{{ ${D}.interfaces.extra(where=['1=1']) }}`],
    [`{{ ${D}.interfaces.__class__ }}`],
    // secrets, directly and through relations
    ['{% for k in objects %}{{ k.key }}|{{ k["key"] }}|{{ k|attr("key") }}|{{ k.key_secret }}|{{ k.key_set }}{% endfor %}', 'routing.keychain', '||||True'],
    ['{{ (objects|first).get_key_display() }}', 'routing.keychain'],
    ['{% for g in objects %}{{ g.keychain.name }}:{{ g.keychain.key }}:{{ g.keychain.key_secret }}{% endfor %}', 'routing.bgppeergroup', 'kc1::'],
    ['{% for k in objects %}{% for g in k.bgp_peer_groups.all() %}{{ g.name }}{{ g.keychain.key }}{% endfor %}{% endfor %}', 'routing.keychain', 'pg1'],
    ['{{ (objects|first).bgp_peer_groups.filter(keychain__key="x").count() }}', 'routing.keychain'],
    [`{% for c in ${D}.device_credentials.all() %}{{ c.username }}:{{ c.password }}:{{ c.password_set }}{% endfor %}`, 'dcim.device', 'netops::'],
    [`{{ ${D}.device_credentials.filter(password='pw-SECRET-4413').count() }}`],
    [`{{ ${D}.device_credentials.filter(password__startswith='p').count() }}`],
    [`{{ ${D}.device_credentials.order_by('password').first() }}`],
    [`{{ ${D}.device_credentials.exclude(password__isnull=True).count() }}`],
    ['{{ objects|first }}', 'extras.webhook'],
    ['{{ objects|first }}', 'dcim.devicecredential'],
    ['{{ objects|first }}', 'users.user'],
    ['{{ objects|first }}', 'users.token'],
    ['{% for j in objects %}{{ j.author.username }}|{{ j.author.email }}|{{ j.author.password }}|{{ j.author.is_superuser }}|{{ j.author.groups }}{% endfor %}', 'core.journalentry', 'alice||||'],
    [`{{ ${D}.tenant.name }}|{{ ${D}.tenant.slug }}|{{ ${D}.tenant.id }}|{{ ${D}.tenant.description }}`, 'dcim.device', 'Alpha|||'],
    // other tenants: ids, names, lookups across tables
    [`{{ ${D}.interfaces.get(pk='BOB_IF').name }}`],
    [`{{ ${D}.site.devices.get(pk='BOB_DEV').name }}`],
    [`{{ ${D}.site.devices.filter(id='BOB_DEV').count() }}`, 'dcim.device', '0'],
    [`{{ ${D}.site.devices.filter(pk__in=['BOB_DEV']).count() }}`, 'dcim.device', '0'],
    [`{{ ${D}.site.devices.filter(name='beta-SECRET-box').count() }}`, 'dcim.device', '0'],
    [`{{ ${D}.site.devices.filter(tenant_id='x').count() }}`],
    [`{{ ${D}.interfaces.filter(device__tenant__slug='beta').count() }}`],
    [`{{ ${D}.interfaces.exclude(device__site__name='x').count() }}`],
    [`{{ ${D}.interfaces.order_by('device__name').first() }}`],
    [`{{ ${D}.interfaces.filter(name__regex='.*').count() }}`],
    [`{{ ${D}.interfaces.filter(device='BOB_DEV').count() }}`, 'dcim.device', '0'],
    ['{% for t in objects %}{{ t.name }};{% endfor %}', 'tenancy.tenant', 'Alpha;'],
    // resource exhaustion
    ['{{ range(10**9)|length }}'],
    ['{% for i in range(100001) %}{% endfor %}'],
    ['{% macro r(n) %}{{ r(n + 1) }}{% endmacro %}{{ r(0) }}'],
    ["{{ 'a' * 10**9 }}"],
    [`{{ ${D}.interfaces.filter(name__in=range(20000)).count() }}`],
    ['{% set ns = namespace(x=objects|first) %}{% set ns.x.name = "hacked" %}{{ ns.x.name }}'],
  ];
}

describe('sandbox probes', () => {
  it('has at least 60 probes', () => {
    expect(probes().length).toBeGreaterThanOrEqual(60);
  });

  it('every probe renders harmlessly or fails with a template error, reading nothing it may not', async () => {
    const admin = h.as('admin');
    const failures: string[] = [];
    for (const [raw, objectType, expected] of probes()) {
      const code = raw.replace(/BOB_DEV/g, bobDevice).replace(/BOB_IF/g, bobInterface);
      const res = await admin.post('/api/export-templates/preview/', { object_type: objectType ?? 'dcim.device', template_code: code });
      const text = res.body;
      const why = `${code} → ${res.statusCode} ${text.slice(0, 300)}`;
      if (res.statusCode !== 200 && res.statusCode !== 400) failures.push(`status: ${why}`);
      for (const bad of ['SECRET', passwordHash, 'function', '[native code]', 'process.', '/work/', 'node_modules', 'Kysely', 'RowGroup', 'RenderSession']) {
        if (text.includes(bad)) failures.push(`leaked ${bad}: ${why}`);
      }
      if (expected !== undefined) {
        const output = res.statusCode === 200 ? (res.json() as { output: string }).output : null;
        const ok = output !== null && (typeof expected === 'string' ? output === expected : expected.test(output));
        if (!ok) failures.push(`expected ${String(expected)}: ${why}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('cannot change rows it reads', async () => {
    const { rows } = await sql<{ name: string }>`SELECT name FROM devices WHERE tenant_id = ${h.tenants.a}`.execute(h.database.db);
    expect(rows.map((r) => r.name)).toEqual(['leaf1']);
  });
});
