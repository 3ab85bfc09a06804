import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Client, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics } from '../../test/helpers/inventory.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

type Obj = Record<string, unknown> & { id: string };
let n = 0;

/** A provider with an account and a network, and a circuit type. */
async function providerSet(client: Client): Promise<{ provider: Obj; account: Obj; network: Obj; type: Obj }> {
  const i = ++n;
  const provider = await created(client, '/api/providers/', { name: `Carrier ${i}`, slug: `carrier-${i}` });
  const account = await created(client, '/api/provider-accounts/', { provider: provider.id, account: `ACC-${i}` });
  const network = await created(client, '/api/provider-networks/', { provider: provider.id, name: `Backbone ${i}` });
  const type = await created(client, '/api/circuit-types/', { name: `Transit ${i}`, slug: `transit-${i}` });
  return { provider, account, network, type };
}

const end = (object_type: string, object_id: string) => ({ object_type, object_id });
const cable = (client: Client, a: [string, string], b: [string, string]) =>
  created(client, '/api/cables/', { a_terminations: [end(...a)], b_terminations: [end(...b)] });

describe('providers and circuits', () => {
  it('keeps a circuit\'s cid unique per provider and its account of its own provider', async () => {
    const alice = h.as('alice');
    const p1 = await providerSet(alice);
    const p2 = await providerSet(alice);
    const c = await created(alice, '/api/circuits/', { cid: 'CID-100', provider: p1.provider.id, type: p1.type.id, provider_account: p1.account.id, commit_rate: 1_000_000 });
    expect(c).toMatchObject({ display: 'CID-100', commit_rate: 1_000_000 });
    // Active is the tenant's default status for circuits; NetBox's other circuit statuses are available.
    expect((c.status as Obj).display).toBe('Active');
    const statuses = (await alice.get('/api/statuses/?limit=100')).json().results as Array<{ slug: string; id: string; available_to: string[] }>;
    for (const slug of ['planned', 'provisioning', 'active', 'offline', 'deprovisioning', 'decommissioned']) {
      const s = statuses.find((x) => x.slug === slug)!;
      expect(s.available_to).toContain('circuits.circuit');
    }
    const provisioning = statuses.find((x) => x.slug === 'provisioning')!;
    expect((await alice.patch(`/api/circuits/${c.id}/`, { status: provisioning.id })).statusCode).toBe(200);
    const reserved = statuses.find((x) => x.slug === 'reserved')!;
    expect((await alice.patch(`/api/circuits/${c.id}/`, { status: reserved.id })).json()).toHaveProperty('status');

    const dup = await alice.post('/api/circuits/', { cid: 'CID-100', provider: p1.provider.id, type: p1.type.id });
    expect(dup.statusCode).toBe(400);
    expect(dup.json()).toHaveProperty('cid');
    // The same cid at another provider is another circuit.
    await created(alice, '/api/circuits/', { cid: 'CID-100', provider: p2.provider.id, type: p1.type.id });

    const foreignAccount = await alice.post('/api/circuits/', { cid: 'CID-101', provider: p1.provider.id, type: p1.type.id, provider_account: p2.account.id });
    expect(foreignAccount.statusCode).toBe(400);
    expect(foreignAccount.json().provider_account[0]).toContain(`belongs to ${p2.provider.name as string}`);
    const move = await alice.patch(`/api/circuits/${c.id}/`, { provider: p2.provider.id });
    expect(move.json()).toHaveProperty('provider_account');
    expect((await alice.get(`/api/circuits/?cid=CID-101`)).json().count).toBe(0);

    const dupAccount = await alice.post('/api/provider-accounts/', { provider: p1.provider.id, account: p1.account.account });
    expect(dupAccount.json()).toHaveProperty('account');
    const dupNetwork = await alice.post('/api/provider-networks/', { provider: p1.provider.id, name: p1.network.name });
    expect(dupNetwork.json()).toHaveProperty('name');
    expect(p1.account.display).toBe(`${p1.provider.name as string} › ${p1.account.account as string}`);
  });

  it('gives a provider its autonomous systems (NetBox\'s provider ASNs), of the tenant only', async () => {
    const alice = h.as('alice');
    const rir = await created(alice, '/api/rirs/', { name: 'ARIN-c', slug: 'arin-c' });
    const asn = await created(alice, '/api/asns/', { asn: 3356, rir: rir.id });
    const { provider } = await providerSet(alice);
    const res = await alice.patch(`/api/providers/${provider.id}/`, { asns: [asn.id] });
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json().asns as Obj[]).map((a) => a.display)).toEqual(['AS3356']);
    const bobRir = await created(h.as('bob'), '/api/rirs/', { name: 'RIPE-c', slug: 'ripe-c' });
    const theirs = await created(h.as('bob'), '/api/asns/', { asn: 174, rir: bobRir.id });
    const refused = await alice.patch(`/api/providers/${provider.id}/`, { asns: [theirs.id] });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toHaveProperty('asns');
  });

  it('protects providers with circuits and networks with terminations; a circuit takes its terminations and their cables', async () => {
    const alice = h.as('alice');
    const p = await providerSet(alice);
    const b = await inventoryBasics(alice, ['eth1']);
    const router = await createDevice(alice, b, 'del-router');
    const eth1 = (await alice.get(`/api/interfaces/?device=${router.id}&name=eth1`)).json().results[0] as Obj;
    const c = await created(alice, '/api/circuits/', { cid: 'DEL-1', provider: p.provider.id, type: p.type.id });
    const a = await created(alice, '/api/circuit-terminations/', { circuit: c.id, term_side: 'A', termination_type: 'dcim.site', termination_id: b.site });
    const z = await created(alice, '/api/circuit-terminations/', { circuit: c.id, term_side: 'Z', termination_type: 'circuits.providernetwork', termination_id: p.network.id });
    expect(z).toMatchObject({ display: 'DEL-1 › Z', term_side: 'Z', termination_type: 'circuits.providernetwork', termination_id: p.network.id });
    expect((z.provider_network as Obj).id).toBe(p.network.id);
    expect(z.site).toBeNull();
    expect((a.site as Obj).id).toBe(b.site);
    expect((await alice.get(`/api/circuit-terminations/?provider_network=${p.network.id}`)).json().count).toBe(1);
    const k = await cable(alice, ['dcim.interface', eth1.id], ['circuits.circuittermination', a.id]);
    // NetBox: a termination on a provider network takes no cable.
    const toNetwork = await alice.post('/api/cables/', { a_terminations: [end('circuits.circuittermination', z.id)], b_terminations: [end('dcim.interface', eth1.id)] });
    expect(toNetwork.statusCode).toBe(400);
    expect(toNetwork.json().a_terminations).toContain('DEL-1 › Side Z is on a provider network and takes no cable: the circuit ends in the provider\'s network.');

    expect((await alice.delete(`/api/providers/${p.provider.id}/`)).statusCode).toBe(409);
    expect((await alice.delete(`/api/provider-networks/${p.network.id}/`)).statusCode).toBe(409);
    expect((await alice.delete(`/api/sites/${b.site}/`)).statusCode).toBe(409);
    expect((await alice.get(`/api/providers/${p.provider.id}/`)).statusCode).toBe(200);

    expect((await alice.delete(`/api/circuits/${c.id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/circuit-terminations/${a.id}/`)).statusCode).toBe(404);
    expect((await alice.get(`/api/cables/${k.id}/`)).statusCode).toBe(404);
    expect((await alice.get(`/api/interfaces/${eth1.id}/`)).json().link_peer).toBeNull();
    expect((await alice.delete(`/api/provider-networks/${p.network.id}/`)).statusCode).toBe(204);
    // The account is still there: a provider with accounts is protected too (NetBox: PROTECT).
    expect((await alice.delete(`/api/providers/${p.provider.id}/`)).statusCode).toBe(409);
    expect((await alice.delete(`/api/provider-accounts/${p.account.id}/`)).statusCode).toBe(204);
    expect((await alice.delete(`/api/providers/${p.provider.id}/`)).statusCode).toBe(204);
  });

  it('checks a termination\'s side and what it ends on', async () => {
    const alice = h.as('alice');
    const p = await providerSet(alice);
    const b = await inventoryBasics(alice);
    const c = await created(alice, '/api/circuits/', { cid: 'RULE-1', provider: p.provider.id, type: p.type.id });
    const a = await created(alice, '/api/circuit-terminations/', { circuit: c.id, term_side: 'A', termination_type: 'dcim.site', termination_id: b.site });
    const again = await alice.post('/api/circuit-terminations/', { circuit: c.id, term_side: 'A', termination_type: 'dcim.site', termination_id: b.site });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toHaveProperty('term_side');
    expect((await alice.post('/api/circuit-terminations/', { circuit: c.id, term_side: 'B', termination_type: 'dcim.site', termination_id: b.site })).json()).toHaveProperty('term_side');
    const wrongKind = await alice.post('/api/circuit-terminations/', { circuit: c.id, term_side: 'Z', termination_type: 'dcim.device', termination_id: b.site });
    expect(wrongKind.json()).toHaveProperty('termination_type');
    // A site's id named as a provider network: no such network.
    const mismatch = await alice.post('/api/circuit-terminations/', { circuit: c.id, term_side: 'Z', termination_type: 'circuits.providernetwork', termination_id: b.site });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().termination_id[0]).toContain('No provider network with id');
    // Both a site and a provider network: the relations are read back from termination_type/termination_id.
    const both = await alice.post('/api/circuit-terminations/', { circuit: c.id, term_side: 'Z', termination_type: 'circuits.providernetwork', termination_id: p.network.id, site: b.site });
    expect(both.statusCode).toBe(400);
    expect(both.json()).toHaveProperty('site');
    expect((await alice.get(`/api/circuit-terminations/?circuit=${c.id}`)).json().count).toBe(1);

    // A cabled termination cannot move onto a provider network.
    const ifs = await inventoryBasics(alice, ['eth1']);
    const dev = await createDevice(alice, ifs, 'rule-dev');
    const eth1 = (await alice.get(`/api/interfaces/?device=${dev.id}&name=eth1`)).json().results[0] as Obj;
    await cable(alice, ['dcim.interface', eth1.id], ['circuits.circuittermination', a.id]);
    const toNetwork = await alice.patch(`/api/circuit-terminations/${a.id}/`, { termination_type: 'circuits.providernetwork', termination_id: p.network.id });
    expect(toNetwork.json()).toHaveProperty('termination_type');
    expect((await alice.get(`/api/circuit-terminations/${a.id}/`)).json().termination_type).toBe('dcim.site');
    // A termination cannot be cabled to a console port kind it does not pair with: only interfaces, ports, terminations.
    expect((await alice.get('/api/dcim/choices/')).json().circuit_term_sides).toEqual([{ value: 'A', label: 'A' }, { value: 'Z', label: 'Z' }]);
  });

  it('does not reach another tenant\'s site or provider network', async () => {
    const alice = h.as('alice');
    const bob = h.as('bob');
    const bobSet = await providerSet(bob);
    const bobBasics = await inventoryBasics(bob);
    const p = await providerSet(alice);
    const c = await created(alice, '/api/circuits/', { cid: 'ISO-1', provider: p.provider.id, type: p.type.id });
    const net = await alice.post('/api/circuit-terminations/', { circuit: c.id, term_side: 'A', termination_type: 'circuits.providernetwork', termination_id: bobSet.network.id });
    expect(net.statusCode).toBe(400);
    expect(net.json()).toEqual({ termination_id: [`No provider network with id ${bobSet.network.id} exists.`] });
    const site = await alice.post('/api/circuit-terminations/', { circuit: c.id, term_side: 'A', termination_type: 'dcim.site', termination_id: bobBasics.site });
    expect(site.json()).toHaveProperty('termination_id');
    const account = await alice.post('/api/circuits/', { cid: 'ISO-2', provider: p.provider.id, type: p.type.id, provider_account: bobSet.account.id });
    expect(account.json()).toHaveProperty('provider_account');
    expect((await bob.get(`/api/circuits/${c.id}/`)).statusCode).toBe(404);
  });
});

describe('a trace through a circuit', () => {
  it('goes interface › cable › A › Z › cable › far interface, both ways', async () => {
    const alice = h.as('alice');
    const p = await providerSet(alice);
    const b = await inventoryBasics(alice, ['eth1', 'eth2']);
    const border = await createDevice(alice, b, 'ct-border');
    const far = await createDevice(alice, b, 'ct-carrier-pe');
    const ifOf = async (dev: Obj, name: string) => (await alice.get(`/api/interfaces/?device=${dev.id}&name=${name}`)).json().results[0] as Obj;
    const uplink = await ifOf(border, 'eth1');
    const pe = await ifOf(far, 'eth1');
    const c = await created(alice, '/api/circuits/', { cid: 'CID123', provider: p.provider.id, type: p.type.id });
    const a = await created(alice, '/api/circuit-terminations/', { circuit: c.id, term_side: 'A', termination_type: 'dcim.site', termination_id: b.site, port_speed: 10_000_000 });
    const z = await created(alice, '/api/circuit-terminations/', { circuit: c.id, term_side: 'Z', termination_type: 'dcim.site', termination_id: b.site });
    const k1 = await cable(alice, ['dcim.interface', uplink.id], ['circuits.circuittermination', a.id]);
    const k2 = await cable(alice, ['circuits.circuittermination', z.id], ['dcim.interface', pe.id]);

    const trace = (await alice.get(`/api/interfaces/${uplink.id}/trace/`)).json();
    expect(trace.ended).toBe('interface');
    const hops = trace.segments.map((s: { near_end: Obj; cable: Obj; far_end: Obj }) => [s.near_end.display, s.cable.id, s.far_end.display]);
    expect(hops).toEqual([
      ['ct-border › eth1', k1.id, 'CID123 › Side A'],
      ['CID123 › Side Z', k2.id, 'ct-carrier-pe › eth1'],
    ]);
    expect(trace.segments[0].far_end).toMatchObject({ object_type: 'circuits.circuittermination', device: null, parent: { object_type: 'circuits.circuit', id: c.id, display: 'CID123' } });
    expect(trace.destination).toMatchObject({ id: pe.id, object_type: 'dcim.interface' });

    const back = (await alice.get(`/api/interfaces/${pe.id}/trace/`)).json();
    expect(back.segments.map((s: { far_end: Obj }) => s.far_end.display)).toEqual(['CID123 › Side Z', 'ct-border › eth1']);
    expect(back.destination.id).toBe(uplink.id);

    // The near interface: its link peer is the termination, its connected endpoint the far interface.
    const near = (await alice.get(`/api/interfaces/${uplink.id}/`)).json();
    expect(near.link_peer).toMatchObject({ object_type: 'circuits.circuittermination', id: a.id, parent_type: 'circuits.circuit', device: 'CID123', name: 'Side A', display: 'CID123 › Side A', cable_id: k1.id });
    expect(near.connected_endpoint).toMatchObject({ id: pe.id, display: 'ct-carrier-pe › eth1' });
    const listed = (await alice.get(`/api/interfaces/?device=${border.id}`)).json().results as Obj[];
    expect(listed.find((i) => i.id === uplink.id)!.connected_endpoint).toMatchObject({ id: pe.id });
    // The termination's own link peer and trace.
    const term = (await alice.get(`/api/circuit-terminations/${a.id}/`)).json();
    expect(term.link_peer).toMatchObject({ object_type: 'dcim.interface', id: uplink.id, display: 'ct-border › eth1' });
    const fromTerm = (await alice.get(`/api/circuit-terminations/${z.id}/trace/`)).json();
    expect(fromTerm).toMatchObject({ ended: 'interface', destination: { id: pe.id } });

    // Deleting a termination takes its cable: the path now ends at the A termination (the circuit leads nowhere).
    expect((await alice.delete(`/api/circuit-terminations/${z.id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/cables/${k2.id}/`)).statusCode).toBe(404);
    const cut = (await alice.get(`/api/interfaces/${uplink.id}/trace/`)).json();
    expect(cut).toMatchObject({ ended: 'endpoint', destination: { id: a.id } });
  });

  it('ends at the termination when the far one is on a provider network', async () => {
    const alice = h.as('alice');
    const p = await providerSet(alice);
    const b = await inventoryBasics(alice, ['eth1']);
    const border = await createDevice(alice, b, 'ct-pn-border');
    const uplink = (await alice.get(`/api/interfaces/?device=${border.id}&name=eth1`)).json().results[0] as Obj;
    const c = await created(alice, '/api/circuits/', { cid: 'CID-PN', provider: p.provider.id, type: p.type.id });
    const a = await created(alice, '/api/circuit-terminations/', { circuit: c.id, term_side: 'A', termination_type: 'dcim.site', termination_id: b.site });
    await created(alice, '/api/circuit-terminations/', { circuit: c.id, term_side: 'Z', termination_type: 'circuits.providernetwork', termination_id: p.network.id });
    await cable(alice, ['dcim.interface', uplink.id], ['circuits.circuittermination', a.id]);
    const trace = (await alice.get(`/api/interfaces/${uplink.id}/trace/`)).json();
    expect(trace).toMatchObject({ ended: 'endpoint', destination: { id: a.id, display: 'CID-PN › Side A' } });
    expect(trace.segments).toHaveLength(1);
    expect((await alice.get(`/api/interfaces/${uplink.id}/`)).json().connected_endpoint).toMatchObject({ id: a.id, object_type: 'circuits.circuittermination' });
  });
});
