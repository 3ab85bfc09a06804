// ASNs and ASN ranges: the rules (range bounds, an ASN once per tenant), NetBox's display (AS65001, asdot for
// 4-byte numbers), and available-asns: free numbers computed in SQL, allocation all-or-none, distinct under
// concurrent callers, 409 when full, and another tenant's range reading as missing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { created } from '../../test/helpers/inventory.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

let n = 0;
async function rir(who: 'alice' | 'bob' = 'alice'): Promise<string> {
  n++;
  return (await created(h.as(who), '/api/rirs/', { name: `RIR ${n}`, slug: `rir-${n}`, is_private: true })).id;
}
async function range(start: number, end: number, who: 'alice' | 'bob' = 'alice'): Promise<Record<string, unknown> & { id: string }> {
  n++;
  return created(h.as(who), '/api/asn-ranges/', { name: `Range ${n}`, slug: `range-${n}`, rir: await rir(who), start, end });
}

describe('ASNs', () => {
  it('are shown as NetBox writes them, once per tenant, within 1..4294967295', async () => {
    const alice = h.as('alice');
    const r = await rir();
    const small = await created(alice, '/api/asns/', { asn: 65001, rir: r });
    expect(small).toMatchObject({ asn: 65001, display: 'AS65001', asn_display: 'AS65001' });
    const big = await created(alice, '/api/asns/', { asn: 4200000000, rir: r });
    expect(big.display).toBe('AS4200000000 (64086.59904)');
    const dup = await alice.post('/api/asns/', { asn: 65001, rir: r });
    expect(dup.statusCode).toBe(400);
    expect(dup.json()).toHaveProperty('asn');
    for (const asn of [0, 4294967296]) {
      const bad = await alice.post('/api/asns/', { asn, rir: r });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toHaveProperty('asn');
    }
    // Another tenant may hold the same number.
    expect((await h.as('bob').post('/api/asns/', { asn: 65001, rir: await rir('bob') })).statusCode).toBe(201);
    // A RIR with ASNs cannot be deleted.
    expect((await alice.delete(`/api/rirs/${r}/`)).statusCode).toBe(409);
  });

  it('a range ends at or after its start (400 naming the field, nothing created or changed)', async () => {
    const alice = h.as('alice');
    const r = await rir();
    const before = (await alice.get('/api/asn-ranges/')).json().count;
    const bad = await alice.post('/api/asn-ranges/', { name: 'Backwards', slug: 'backwards', rir: r, start: 65010, end: 65000 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ end: ['The range ends (65000) before it starts (65010): the end is at least the start.'] });
    expect((await alice.get('/api/asn-ranges/')).json().count).toBe(before);
    const one = await created(alice, '/api/asn-ranges/', { name: 'Single', slug: 'single', rir: r, start: 65020, end: 65020 });
    const patched = await alice.patch(`/api/asn-ranges/${one.id}/`, { start: 65021 });
    expect(patched.statusCode).toBe(400);
    expect(patched.json()).toHaveProperty('start');
    expect((await alice.get(`/api/asn-ranges/${one.id}/`)).json().start).toBe(65020);
  });
});

describe('available-asns', () => {
  it('lists the gaps between used numbers and allocates the first free ones, with the range\'s RIR', async () => {
    const alice = h.as('alice');
    const rg = await range(64600, 64609);
    for (const asn of [64600, 64601, 64604]) await created(alice, '/api/asns/', { asn, rir: rg.rir && (rg.rir as { id: string }).id });
    const free = await alice.get(`/api/asn-ranges/${rg.id}/available-asns/?limit=3`);
    expect(free.statusCode).toBe(200);
    expect(free.json().map((f: { asn: number }) => f.asn)).toEqual([64602, 64603, 64605]);
    expect(free.json()[0].rir.id).toBe((rg.rir as { id: string }).id);
    const one = await alice.post(`/api/asn-ranges/${rg.id}/available-asns/`, { description: 'new pod' });
    expect(one.statusCode, one.body).toBe(201);
    expect(one.json()).toMatchObject({ asn: 64602, description: 'new pod', rir: { id: (rg.rir as { id: string }).id } });
    const many = await alice.post(`/api/asn-ranges/${rg.id}/available-asns/`, [{}, {}]);
    expect(many.json().map((a: { asn: number }) => a.asn)).toEqual([64603, 64605]);
    expect((await alice.get(`/api/asn-ranges/${rg.id}/`)).json().asn_count).toBe(6);
    // asn and rir are the range's to set.
    const setAsn = await alice.post(`/api/asn-ranges/${rg.id}/available-asns/`, { asn: 1 });
    expect(setAsn.statusCode).toBe(400);
    expect(setAsn.json()).toHaveProperty('asn');
    // 4 left: asking for 5 is a 409 and creates nothing.
    const tooMany = await alice.post(`/api/asn-ranges/${rg.id}/available-asns/`, [{}, {}, {}, {}, {}]);
    expect(tooMany.statusCode).toBe(409);
    expect(tooMany.json().detail).toMatch(/only 4 free ASNs; 5 were asked for\. Nothing was created\./);
    expect((await alice.get(`/api/asn-ranges/${rg.id}/available-asns/`)).json()).toHaveLength(4);
    // A bad item refuses the whole call.
    const badItem = await alice.post(`/api/asn-ranges/${rg.id}/available-asns/`, [{}, { description: 'x'.repeat(300) }]);
    expect(badItem.statusCode).toBe(400);
    expect(Object.keys(badItem.json())[0]).toMatch(/^\[1\]\.description/);
    expect((await alice.get(`/api/asn-ranges/${rg.id}/available-asns/`)).json()).toHaveLength(4);
  });

  it('a four-billion-number range answers from SQL at once', async () => {
    const rg = await range(1, 4294967295);
    const free = await h.as('alice').get(`/api/asn-ranges/${rg.id}/available-asns/?limit=1000`);
    expect(free.statusCode).toBe(200);
    expect(free.json()).toHaveLength(1000);
  });

  it('20 simultaneous allocations on one range get 20 distinct ASNs; a full range answers 409', async () => {
    const rg = await range(64700, 64719);
    const answers = await Promise.all(Array.from({ length: 20 }, () => h.as('alice').post(`/api/asn-ranges/${rg.id}/available-asns/`, {})));
    for (const a of answers) expect(a.statusCode, a.body).toBe(201);
    expect(new Set(answers.map((a) => a.json().asn)).size).toBe(20);
    const full = await h.as('alice').post(`/api/asn-ranges/${rg.id}/available-asns/`, {});
    expect(full.statusCode).toBe(409);
    expect(full.json().detail).toMatch(/has no free ASN/);
    expect((await h.as('alice').get(`/api/asn-ranges/${rg.id}/available-asns/`)).json()).toEqual([]);
  });

  it('another tenant\'s range reads as missing; a viewer may not allocate', async () => {
    const rg = await range(64800, 64810);
    expect((await h.as('bob').get(`/api/asn-ranges/${rg.id}/available-asns/`)).statusCode).toBe(404);
    expect((await h.as('bob').post(`/api/asn-ranges/${rg.id}/available-asns/`, {})).statusCode).toBe(404);
    expect((await h.as('viewer').post(`/api/asn-ranges/${rg.id}/available-asns/`, {})).statusCode).toBe(403);
    // Bob's own ASNs do not take numbers from Alice's range.
    await created(h.as('bob'), '/api/asns/', { asn: 64800, rir: await rir('bob') });
    expect((await h.as('alice').get(`/api/asn-ranges/${rg.id}/available-asns/?limit=1`)).json()[0].asn).toBe(64800);
  });
});
