import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { created, createDevice, inventoryBasics } from '../../test/helpers/inventory.ts';
import { configureSecrets, decryptSecret, isEncryptedSecret, parseSecretKey } from '../core/secrets.ts';
import { communityError } from './service.ts';

let h: Harness;
beforeAll(async () => {
  // On PostgreSQL the deployment needs CAIRN_SECRET_KEY (no key file); give the test app one.
  if (process.env.TEST_DATABASE_URL && !process.env.CAIRN_SECRET_KEY) process.env.CAIRN_SECRET_KEY = 'ab'.repeat(32);
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function rawColumn(table: string, column: string, id: string): Promise<unknown> {
  const { rows } = await sql<Record<string, unknown>>`SELECT ${sql.ref(column)} AS v FROM ${sql.table(table)} WHERE id = ${id}`.execute(h.database.db);
  return rows[0]?.v;
}

describe('keychains', () => {
  it('never returns the key, stores it encrypted, masks it in the change log', async () => {
    const alice = h.as('alice');
    const res = await alice.post('/api/routing/keychains/', { name: 'ISIS-KEY', algorithm: 'md5', key: 's3cr3t-psk' });
    expect(res.statusCode, res.body).toBe(201);
    const kc = res.json();
    expect(kc).not.toHaveProperty('key');
    expect(res.body).not.toContain('s3cr3t-psk');
    expect(kc).toMatchObject({ name: 'ISIS-KEY', algorithm: 'md5', key_set: true });
    const raw = await rawColumn('keychains', 'key_secret', kc.id);
    expect(typeof raw).toBe('string');
    expect(raw).not.toContain('s3cr3t-psk');
    expect(isEncryptedSecret(raw)).toBe(true);
    expect(decryptSecret(raw as string)).toBe('s3cr3t-psk');
    // Every read path omits it.
    const got = await alice.get(`/api/routing/keychains/${kc.id}/`);
    expect(got.body).not.toContain('s3cr3t');
    expect(got.json()).not.toHaveProperty('key');
    const list = await alice.get('/api/routing/keychains/');
    expect(list.body).not.toContain(String(raw));
    // Filtering by a secret is not offered.
    expect((await alice.get('/api/routing/keychains/?key=s3cr3t-psk')).statusCode).toBe(400);

    await alice.patch(`/api/routing/keychains/${kc.id}/`, { key: 'rotated-key' });
    const changes = await alice.get(`/api/changes/?object_type=routing.keychain&object_id=${kc.id}`);
    expect(changes.statusCode).toBe(200);
    expect(changes.body).not.toContain('s3cr3t');
    expect(changes.body).not.toContain('rotated-key');
    expect(changes.body).not.toContain(String(raw));
    expect(changes.json().results.some((c: { after: { key: string } }) => c.after?.key === '********')).toBe(true);

    const cleared = await alice.patch(`/api/routing/keychains/${kc.id}/`, { key: null });
    expect(cleared.json().key_set).toBe(false);
    expect((await alice.patch(`/api/routing/keychains/${kc.id}/`, { key: '   ' })).statusCode).toBe(400);
  });

  it('refuses names a <keychain:NAME> placeholder could not carry', async () => {
    for (const name of ['has space', 'a<b', 'x>']) {
      const res = await h.as('alice').post('/api/routing/keychains/', { name });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toHaveProperty('name');
    }
  });

  it('generates the embedded key file once with mode 0600', async () => {
    if (!h.database.dataDir) return;
    const file = join(h.database.dataDir, 'secret.key');
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(() => parseSecretKey('tooshort')).toThrow(/CAIRN_SECRET_KEY/);
    expect(parseSecretKey('cd'.repeat(32)).length).toBe(32);
    expect(parseSecretKey(Buffer.alloc(32, 7).toString('base64')).length).toBe(32);
  });

  it('refuses to store a secret with a clear 400 when the deployment has no key (PostgreSQL without CAIRN_SECRET_KEY)', async () => {
    configureSecrets({ secretKey: null, keyFile: null });
    try {
      const res = await h.as('alice').post('/api/routing/keychains/', { name: 'NOKEY', key: 'x' });
      expect(res.statusCode).toBe(400);
      expect(res.json().key[0]).toContain('CAIRN_SECRET_KEY');
      expect((await h.as('alice').get('/api/routing/keychains/?name=NOKEY')).json().count).toBe(0);
      // Objects without a secret are still fine.
      expect((await h.as('alice').post('/api/routing/keychains/', { name: 'NOKEY2' })).statusCode).toBe(201);
    } finally {
      configureSecrets({ secretKey: process.env.CAIRN_SECRET_KEY ?? null, keyFile: h.database.dataDir ? join(h.database.dataDir, 'secret.key') : null });
    }
  });
});

describe('credential-bearing types', () => {
  it('webhooks, automation targets and device credentials keep their secrets write-only and encrypted', async () => {
    const alice = h.as('alice');
    const hook = await alice.post('/api/webhooks/', {
      name: 'hook',
      payload_url: 'https://hooks.example.com/x',
      secret: 'hmac-secret',
      additional_headers: { Authorization: 'Bearer tok-123' },
      object_types: ['dcim.device'],
      events: ['created'],
    });
    expect(hook.statusCode, hook.body).toBe(201);
    expect(hook.body).not.toContain('hmac-secret');
    expect(hook.body).not.toContain('tok-123');
    expect(hook.json()).toMatchObject({ secret_set: true, additional_headers_set: true });
    const rawHeaders = await rawColumn('webhooks', 'additional_headers', hook.json().id);
    expect(JSON.stringify(rawHeaders)).not.toContain('tok-123');
    expect(JSON.parse(decryptSecret(rawHeaders as string))).toEqual({ Authorization: 'Bearer tok-123' });
    const badHook = await alice.post('/api/webhooks/', { name: 'h2', payload_url: 'https://x.example', object_types: ['nope.model'], events: ['explode'] });
    expect(badHook.statusCode).toBe(400);
    expect(badHook.json()).toHaveProperty('object_types');
    expect(badHook.json()).toHaveProperty('events');

    const target = await alice.post('/api/automation-targets/', { name: 'awx', kind: 'awx', base_url: 'https://awx.example.com', token: 'awx-token-1', job_template_id: 7 });
    expect(target.statusCode, target.body).toBe(201);
    expect(target.body).not.toContain('awx-token-1');
    expect(isEncryptedSecret(await rawColumn('automation_targets', 'token', target.json().id))).toBe(true);
    expect((await alice.post('/api/automation-targets/', { name: 'x', kind: 'ftp', base_url: 'https://x.example' })).statusCode).toBe(400);

    const b = await inventoryBasics(alice);
    const dev = await createDevice(alice, b, 'cred-dev');
    const cred = await alice.post('/api/device-credentials/', { device: dev.id, username: 'admin', password: 'hunter2' });
    expect(cred.statusCode, cred.body).toBe(201);
    expect(cred.body).not.toContain('hunter2');
    expect(cred.json().password_set).toBe(true);
    expect(isEncryptedSecret(await rawColumn('device_credentials', 'password', cred.json().id))).toBe(true);
    const changes = await alice.get(`/api/changes/?object_type=dcim.devicecredential&object_id=${cred.json().id}`);
    expect(changes.body).not.toContain('hunter2');
  });
});

describe('BGP', () => {
  it('validates instances and sessions', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['eth0', 'eth1']);
    const dev = await createDevice(alice, b, 'bgp-1');
    const other = await createDevice(alice, b, 'bgp-2');
    for (const asn of [0, 4294967296, -5]) {
      const res = await alice.post('/api/routing/bgp-instances/', { device: dev.id, asn });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toHaveProperty('asn');
    }
    const noOwner = await alice.post('/api/routing/bgp-instances/', { asn: 65000 });
    expect(noOwner.json()).toHaveProperty('device');
    const badRid = await alice.post('/api/routing/bgp-instances/', { device: dev.id, asn: 65000, router_id: '2001:db8::1' });
    expect(badRid.json()).toHaveProperty('router_id');
    const badAf = await alice.post('/api/routing/bgp-instances/', { device: dev.id, asn: 65000, address_families: ['ipv5-unicast'] });
    expect(badAf.json()).toHaveProperty('address_families');
    const inst = await created(alice, '/api/routing/bgp-instances/', { device: dev.id, asn: 4200000001, router_id: '10.0.0.1', address_families: ['ipv4-unicast', 'l2vpn-evpn'] });
    expect(inst.asn).toBe(4200000001);
    const dup = await alice.post('/api/routing/bgp-instances/', { device: dev.id, asn: 65001 });
    expect(dup.statusCode).toBe(400);
    expect(dup.json()).toHaveProperty('vrf');

    const kc = await created(alice, '/api/routing/keychains/', { name: 'BGP-PEERS', key: 'peer-pw' });
    const pol = await created(alice, '/api/routing/route-policies/', { name: 'IMPORT-ALL' });
    const noAsn = await alice.post('/api/routing/bgp-sessions/', { instance: inst.id, remote_address: '10.1.1.2' });
    expect(noAsn.json()).toHaveProperty('remote_asn');
    const mixed = await alice.post('/api/routing/bgp-sessions/', { instance: inst.id, remote_address: '10.1.1.2', local_address: '2001:db8::1', remote_asn: 65002 });
    expect(mixed.json()).toHaveProperty('local_address');
    const masked = await alice.post('/api/routing/bgp-sessions/', { instance: inst.id, remote_address: '10.1.1.2/30', remote_asn: 65002 });
    expect(masked.json()).toHaveProperty('remote_address');
    const otherIface = (await alice.get(`/api/interfaces/?device=${other.id}&name=eth0`)).json().results[0];
    const foreignIface = await alice.post('/api/routing/bgp-sessions/', { instance: inst.id, interface: otherIface.id, remote_asn_mode: 'external' });
    expect(foreignIface.statusCode).toBe(400);
    expect(foreignIface.json()).toHaveProperty('interface');
    const session = await created(alice, '/api/routing/bgp-sessions/', {
      instance: inst.id,
      remote_address: '10.1.1.2',
      local_address: '10.1.1.1/30',
      remote_asn: 65002,
      keychain: kc.id,
      import_policy: pol.id,
      address_families: ['ipv4-unicast'],
      description: 'to ISP',
    });
    expect(session).toMatchObject({ remote_asn: 65002, enabled: true, keychain: { name: 'BGP-PEERS' }, import_policy: { name: 'IMPORT-ALL' } });
    expect(JSON.stringify(session)).not.toContain('peer-pw');
    const group = await created(alice, '/api/routing/bgp-peer-groups/', { name: 'SPINES', remote_asn_mode: 'internal' });
    await created(alice, '/api/routing/bgp-sessions/', { instance: inst.id, remote_address: '10.1.1.6', peer_group: group.id });
    // Keychain and policy in use are protected.
    expect((await alice.delete(`/api/routing/keychains/${kc.id}/`)).statusCode).toBe(409);
    // A peer group of the other tenant is unknown here.
    const bobGroup = await created(h.as('bob'), '/api/routing/bgp-peer-groups/', { name: 'BOB' });
    const cross = await alice.post('/api/routing/bgp-sessions/', { instance: inst.id, remote_address: '10.1.1.9', remote_asn: 1, peer_group: bobGroup.id });
    expect(cross.statusCode).toBe(400);
    expect(cross.json()).toHaveProperty('peer_group');
  });
});

describe('BGP neighbour settings', () => {
  it('checks timers and limits, and renders effective values (session, else its peer group)', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['eth0']);
    const dev = await createDevice(alice, b, 'bgp-knobs');
    const inst = await created(alice, '/api/routing/bgp-instances/', { device: dev.id, asn: 65010 });
    const base = { instance: inst.id, remote_address: '10.2.0.2', remote_asn: 65020 };
    const refusals: [Record<string, unknown>, string][] = [
      [{ keepalive: 10 }, 'hold_time'],
      [{ hold_time: 30 }, 'keepalive'],
      [{ keepalive: 1, hold_time: 2 }, 'hold_time'],
      [{ keepalive: 30, hold_time: 30 }, 'keepalive'],
      [{ maximum_prefix: 0 }, 'maximum_prefix'],
      [{ allowas_in: 11 }, 'allowas_in'],
      [{ ttl_security_hops: 255 }, 'ttl_security_hops'],
    ];
    for (const [extra, field] of refusals) {
      const res = await alice.post('/api/routing/bgp-sessions/', { ...base, ...extra });
      expect(res.statusCode, JSON.stringify(extra)).toBe(400);
      expect(res.json(), JSON.stringify(extra)).toHaveProperty(field);
    }
    const pol = await created(alice, '/api/routing/route-policies/', { name: 'DEFAULT-ONLY' });
    const group = await created(alice, '/api/routing/bgp-peer-groups/', {
      name: 'TRANSIT', remote_asn: 65030, keepalive: 10, hold_time: 30, maximum_prefix: 950000, soft_reconfiguration: true,
    });
    const viaGroup = await created(alice, '/api/routing/bgp-sessions/', { instance: inst.id, remote_address: '10.2.0.6', peer_group: group.id });
    const own = await created(alice, '/api/routing/bgp-sessions/', {
      ...base, keepalive: 3, hold_time: 9, allowas_in: 2, default_originate: true, default_originate_policy: pol.id, as_override: true,
    });
    expect(own).toMatchObject({ keepalive: 3, hold_time: 9, allowas_in: 2, default_originate: true, default_originate_policy: { name: 'DEFAULT-ONLY' } });
    // A PATCH of one timer is checked against the stored other one.
    const badPatch = await alice.patch(`/api/routing/bgp-sessions/${own.id}/`, { hold_time: 3 });
    expect(badPatch.statusCode).toBe(400);
    expect(badPatch.json()).toHaveProperty('keepalive');
    expect((await alice.patch(`/api/routing/bgp-sessions/${own.id}/`, { hold_time: 0 })).statusCode).toBe(200);

    const tpl = await created(alice, '/api/export-templates/', {
      name: 'bgp-knobs', object_type: 'dcim.device',
      template_code: '{% for s in routing.bgp[0].sessions %}{{ s.remote_address }} {{ s.keepalive }}/{{ s.hold_time }} max={{ s.maximum_prefix }} '
        + 'aai={{ s.allowas_in }} do={{ s.default_originate }}:{{ s.default_originate_policy }} soft={{ s.soft_reconfiguration }} aso={{ s.as_override }}\n{% endfor %}'
        + '{% for g in routing.bgp[0].peer_groups %}group {{ g.name }} {{ g.keepalive }}/{{ g.hold_time }} max={{ g.maximum_prefix }}{% endfor %}',
    });
    const res = await alice.get(`/api/devices/${dev.id}/render/?template=${tpl.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().output).toBe(
      '10.2.0.2 3/0 max=None aai=2 do=True:DEFAULT-ONLY soft=False aso=True\n'
      + '10.2.0.6 10/30 max=950000 aai=None do=False:None soft=True aso=False\n'
      + 'group TRANSIT 10/30 max=950000',
    );
    expect(viaGroup.keepalive).toBeNull();
    // The policy a session originates with is protected while in use.
    expect((await alice.delete(`/api/routing/route-policies/${pol.id}/`)).statusCode).toBe(409);
  });
});

describe('static routes, OSPF, IS-IS, VTEPs', () => {
  it('validates next hops, areas, NETs and VNIs', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['eth0']);
    const dev = await createDevice(alice, b, 'rt-1');
    const iface = (await alice.get(`/api/interfaces/?device=${dev.id}`)).json().results[0];
    const vrf = await created(alice, '/api/vrfs/', { name: 'RT-VRF' });
    const route = await created(alice, '/api/routing/static-routes/', { device: dev.id, vrf: vrf.id, prefix: '10.20.0.0/16', next_hop: '10.1.1.2', distance: 250 });
    expect(route).toMatchObject({ prefix: '10.20.0.0/16', next_hop: '10.1.1.2', distance: 250, kind: 'unicast' });
    const hostBits = await alice.post('/api/routing/static-routes/', { device: dev.id, prefix: '10.20.0.1/16', next_hop: '10.1.1.2' });
    expect(hostBits.json().prefix[0]).toContain('10.20.0.0/16');
    const family = await alice.post('/api/routing/static-routes/', { device: dev.id, prefix: '0.0.0.0/0', next_hop: '2001:db8::1' });
    expect(family.json()).toHaveProperty('next_hop');
    const nowhere = await alice.post('/api/routing/static-routes/', { device: dev.id, prefix: '0.0.0.0/0' });
    expect(nowhere.json()).toHaveProperty('next_hop');
    await created(alice, '/api/routing/static-routes/', { device: dev.id, prefix: '192.0.2.0/24', kind: 'blackhole' });
    const distance = await alice.post('/api/routing/static-routes/', { device: dev.id, prefix: '0.0.0.0/0', next_hop: '10.0.0.1', distance: 256 });
    expect(distance.json()).toHaveProperty('distance');

    const ospf = await created(alice, '/api/routing/ospf-instances/', { device: dev.id, process_id: 1, router_id: '10.0.0.1' });
    const area = await created(alice, '/api/routing/ospf-areas/', { instance: ospf.id, area_id: '0' });
    expect(area.area_id).toBe('0.0.0.0');
    const badArea = await alice.post('/api/routing/ospf-areas/', { instance: ospf.id, area_id: 'zero' });
    expect(badArea.json()).toHaveProperty('area_id');
    const dupArea = await alice.post('/api/routing/ospf-areas/', { instance: ospf.id, area_id: '0.0.0.0' });
    expect(dupArea.statusCode).toBe(400);
    const stubBackbone = await alice.post('/api/routing/ospf-areas/', { instance: ospf.id, area_id: '0', kind: 'stub' });
    expect(stubBackbone.statusCode).toBe(400);
    const oi = await created(alice, '/api/routing/ospf-interfaces/', { instance: ospf.id, area: area.id, interface: iface.id, cost: 10, network_type: 'point-to-point' });
    expect(oi).toMatchObject({ cost: 10, passive: null });
    // No name of its own: shown as the interface it runs on (device › interface), never as its id.
    expect(oi.display).toBe(`${String(dev.name)} › ${String(iface.name)}`);
    const noKeychain = await alice.post('/api/routing/ospf-interfaces/', { instance: ospf.id, area: area.id, interface: iface.id, authentication: 'message-digest' });
    expect(noKeychain.json()).toHaveProperty('keychain');

    const badNet = await alice.post('/api/routing/isis-instances/', { device: dev.id, net: '49.1.2' });
    expect(badNet.json()).toHaveProperty('net');
    const isis = await created(alice, '/api/routing/isis-instances/', { device: dev.id, net: '49.0001.1921.6800.1001.00', process: 'CORE' });
    await created(alice, '/api/routing/isis-interfaces/', { instance: isis.id, interface: iface.id, families: ['ipv4', 'ipv6'], metric: 10 });
    const badFam = await alice.post('/api/routing/isis-interfaces/', { instance: isis.id, interface: iface.id, families: ['ipx'] });
    expect(badFam.json()).toHaveProperty('families');

    const vtep = await created(alice, '/api/routing/vteps/', { device: dev.id, source_interface: iface.id, source_ip: '10.0.0.1', anycast_gateway_mac: '00:1c:73:00:00:99' });
    const v100 = await created(alice, '/api/vlans/', { vid: 100, name: 'hundred' });
    await created(alice, '/api/routing/vnis/', { vtep: vtep.id, vni: 10100, kind: 'l2', vlan: v100.id });
    const l3 = await alice.post('/api/routing/vnis/', { vtep: vtep.id, vni: 50001, kind: 'l3' });
    expect(l3.json()).toHaveProperty('vrf');
    await created(alice, '/api/routing/vnis/', { vtep: vtep.id, vni: 50001, kind: 'l3', vrf: vrf.id });
    const dupVni = await alice.post('/api/routing/vnis/', { vtep: vtep.id, vni: 50001, kind: 'l3', vrf: vrf.id });
    expect(dupVni.statusCode).toBe(400);
    const bigVni = await alice.post('/api/routing/vnis/', { vtep: vtep.id, vni: 16777215, kind: 'l3', vrf: vrf.id });
    expect(bigVni.json()).toHaveProperty('vni');
  });
});

describe('policies and lists', () => {
  it('validates prefix lists, communities, AS-path lists and route-policy rules', async () => {
    const alice = h.as('alice');
    const pl = await created(alice, '/api/routing/prefix-lists/', { name: 'LOOPBACKS', family: 'ipv4' });
    await created(alice, '/api/routing/prefix-list-entries/', { prefix_list: pl.id, sequence: 10, action: 'permit', prefix: '10.0.0.0/24', ge: 32, le: 32 });
    const v6 = await alice.post('/api/routing/prefix-list-entries/', { prefix_list: pl.id, sequence: 20, action: 'permit', prefix: '2001:db8::/32' });
    expect(v6.json()).toHaveProperty('prefix');
    const range = await alice.post('/api/routing/prefix-list-entries/', { prefix_list: pl.id, sequence: 30, action: 'permit', prefix: '10.0.0.0/24', ge: 16 });
    expect(range.json()).toHaveProperty('ge');
    const dupSeq = await alice.post('/api/routing/prefix-list-entries/', { prefix_list: pl.id, sequence: 10, action: 'deny', prefix: '10.1.0.0/24' });
    expect(dupSeq.statusCode).toBe(400);

    expect(communityError('standard', '65000:100')).toBeNull();
    expect(communityError('standard', 'no-export')).toBeNull();
    expect(communityError('standard', '65536:1')).not.toBeNull();
    expect(communityError('large', '4200000000:1:2')).toBeNull();
    expect(communityError('extended', 'rt 65000:1')).toBeNull();
    const badComm = await alice.post('/api/routing/communities/', { value: '1:2:3' });
    expect(badComm.json()).toHaveProperty('value');
    await created(alice, '/api/routing/communities/', { value: '1:2:3', kind: 'large', name: 'blackhole-large' });

    const cl = await created(alice, '/api/routing/community-lists/', { name: 'CUSTOMERS' });
    await created(alice, '/api/routing/community-list-entries/', { community_list: cl.id, sequence: 10, action: 'permit', communities: ['65000:100'] });
    const clBad = await alice.post('/api/routing/community-list-entries/', { community_list: cl.id, sequence: 20, action: 'permit', communities: ['65000:abc'] });
    expect(clBad.json()).toHaveProperty('communities');

    const ap = await created(alice, '/api/routing/as-path-lists/', { name: 'FROM-65010' });
    await created(alice, '/api/routing/as-path-list-entries/', { as_path_list: ap.id, sequence: 10, action: 'permit', regex: '_65010$' });
    const badRe = await alice.post('/api/routing/as-path-list-entries/', { as_path_list: ap.id, sequence: 20, action: 'permit', regex: '(' });
    expect(badRe.json()).toHaveProperty('regex');

    const pol = await created(alice, '/api/routing/route-policies/', { name: 'FROM-CUSTOMERS' });
    const rule = await created(alice, '/api/routing/route-policy-rules/', {
      route_policy: pol.id,
      sequence: 10,
      action: 'permit',
      match: { prefix_lists: ['LOOPBACKS'], community_lists: ['CUSTOMERS'], as_path_lists: ['FROM-65010'] },
      set: { local_pref: 200, communities: ['65000:1'], communities_additive: true, as_path_prepend: [65000, 65000] },
    });
    expect(rule.match).toMatchObject({ prefix_lists: ['LOOPBACKS'] });
    const missing = await alice.post('/api/routing/route-policy-rules/', { route_policy: pol.id, sequence: 20, action: 'permit', match: { prefix_lists: ['NOPE'] } });
    expect(missing.json()).toHaveProperty(['match.prefix_lists']);
    const badSet = await alice.post('/api/routing/route-policy-rules/', { route_policy: pol.id, sequence: 20, action: 'permit', set: { local_pref: -1, origin: 'bgp' } });
    expect(badSet.json()).toHaveProperty(['set.local_pref']);
    expect(badSet.json()).toHaveProperty(['set.origin']);
    const badAction = await alice.post('/api/routing/route-policy-rules/', { route_policy: pol.id, sequence: 30, action: 'allow' });
    expect(badAction.json()).toHaveProperty('action');
    const notObject = await alice.post('/api/routing/route-policy-rules/', { route_policy: pol.id, sequence: 30, action: 'deny', match: ['x'] });
    expect(notObject.json()).toHaveProperty('match');
    const rules = await alice.get(`/api/routing/route-policy-rules/?route_policy=${pol.id}`);
    expect(rules.json().count).toBe(1);
  });
});
