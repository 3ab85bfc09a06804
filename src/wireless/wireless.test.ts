import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics, type Basics } from '../../test/helpers/inventory.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

type Obj = Record<string, unknown> & { id: string };

async function radio(b: Basics, device: string, name = 'wlan0', type = 'ieee802.11ac'): Promise<Obj> {
  const d = await createDevice(h.as('alice'), b, device);
  return created(h.as('alice'), '/api/interfaces/', { device: d.id, name, type });
}

describe('wireless', () => {
  it('serves NetBox\'s wireless vocabularies in /api/dcim/choices/', async () => {
    const choices = (await h.as('alice').get('/api/dcim/choices/')).json();
    expect(choices.wireless_lan_statuses.map((c: { value: string }) => c.value)).toEqual(['active', 'reserved', 'disabled', 'deprecated']);
    expect(choices.wireless_channels).toContainEqual({ value: '5g-36-5180-20', label: '36 (5180/20 MHz)', group: '5 GHz (802.11a/n/ac/ax)' });
    expect(choices.wireless_roles).toContainEqual({ value: 'ap', label: 'Access point', group: 'Wireless role' });
    expect(choices.wireless_auth_types.map((c: { value: string }) => c.value)).toContain('wpa-personal');
    expect(choices.link_statuses.map((c: { value: string }) => c.value)).toEqual(['connected', 'planned', 'decommissioning']);
  });

  it('LAN groups form a tree; a wireless LAN keeps its PSK secret', async () => {
    const alice = h.as('alice');
    const top = await created(alice, '/api/wireless-lan-groups/', { name: 'Campus', slug: 'campus' });
    const sub = await created(alice, '/api/wireless-lan-groups/', { name: 'Building A', slug: 'building-a', parent: top.id });
    const loop = await alice.patch(`/api/wireless-lan-groups/${top.id}/`, { parent: sub.id });
    expect(loop.statusCode).toBe(400);
    expect(loop.json()).toHaveProperty('parent');
    const lan = await created(alice, '/api/wireless-lans/', { ssid: 'corp', group: sub.id, auth_type: 'wpa-personal', auth_cipher: 'aes', auth_psk: 'correct horse battery' });
    expect(lan).toMatchObject({ display: 'corp', status: 'active', auth_type: 'wpa-personal', group: { display: 'Building A' } });
    expect(lan).not.toHaveProperty('auth_psk');
    expect(JSON.stringify((await alice.get(`/api/wireless-lans/${lan.id}/`)).json())).not.toContain('correct horse');
    const bad = await alice.post('/api/wireless-lans/', { ssid: 'x'.repeat(33) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toHaveProperty('ssid');
    const badStatus = await alice.post('/api/wireless-lans/', { ssid: 'guest', status: 'connected' });
    expect(badStatus.json()).toHaveProperty('status');
    expect((await h.as('bob').get('/api/wireless-lans/')).json().count).toBe(0);
  });

  it('an interface\'s radio fields: wireless interfaces only; a channel fills its frequency and width', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const ap = await radio(b, 'ap-1');
    const set = await alice.patch(`/api/interfaces/${ap.id}/`, { rf_role: 'ap', rf_channel: '5g-36-5180-20', tx_power: 20 });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({ rf_role: 'ap', rf_channel: '5g-36-5180-20', tx_power: 20 });
    expect(Number(set.json().rf_channel_frequency)).toBe(5180);
    expect(Number(set.json().rf_channel_width)).toBe(20);
    const clash = await alice.patch(`/api/interfaces/${ap.id}/`, { rf_channel: '5g-40-5200-20', rf_channel_frequency: 5180 });
    expect(clash.statusCode).toBe(400);
    expect(clash.json()).toHaveProperty('rf_channel_frequency');
    const wired = await created(alice, '/api/interfaces/', { device: (ap.device as Obj).id, name: 'eth0', type: '1000base-t' });
    const refused = await alice.patch(`/api/interfaces/${wired.id}/`, { rf_channel: '2.4g-1-2412-22' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toHaveProperty('rf_channel');
    // Turning a radio into a wired port with its channel set is refused the same way, and changes nothing.
    const retype = await alice.patch(`/api/interfaces/${ap.id}/`, { type: '1000base-t' });
    expect(retype.statusCode).toBe(400);
    expect(retype.json()).toHaveProperty('rf_channel');
    expect((await alice.get(`/api/interfaces/${ap.id}/`)).json().type).toBe('ieee802.11ac');
    const lan = await created(alice, '/api/wireless-lans/', { ssid: 'iot' });
    const joined = await alice.patch(`/api/interfaces/${ap.id}/`, { wireless_lans: [lan.id] });
    expect(joined.json().wireless_lans.map((l: Obj) => l.id)).toEqual([lan.id]);
  });

  it('a wireless link joins two radio interfaces, each in one link at most', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const a = await radio(b, 'ptp-a');
    const z = await radio(b, 'ptp-b');
    const c = await radio(b, 'ptp-c');
    const link = await created(alice, '/api/wireless-links/', { interface_a: a.id, interface_b: z.id, ssid: 'bridge', distance: 1.5, distance_unit: 'km', auth_psk: 'secret-key' });
    expect(link).toMatchObject({ display: 'bridge', status: 'connected', distance_unit: 'km', interface_a: { display: 'ptp-a › wlan0' } });
    expect(link).not.toHaveProperty('auth_psk');
    const before = (await alice.get('/api/wireless-links/')).json().count;
    const again = await alice.post('/api/wireless-links/', { interface_a: c.id, interface_b: a.id });
    expect(again.statusCode).toBe(400);
    expect(again.json().interface_b[0]).toMatch(/already an end of another wireless link/);
    const same = await alice.post('/api/wireless-links/', { interface_a: c.id, interface_b: c.id });
    expect(same.statusCode).toBe(400);
    expect(same.json()).toHaveProperty('interface_b');
    const wired = await created(alice, '/api/interfaces/', { device: (c.device as Obj).id, name: 'eth0', type: '1000base-t' });
    const notRadio = await alice.post('/api/wireless-links/', { interface_a: wired.id, interface_b: c.id });
    expect(notRadio.statusCode).toBe(400);
    expect(notRadio.json().interface_a[0]).toMatch(/not a wireless one/);
    const noUnit = await alice.post('/api/wireless-links/', { interface_a: c.id, interface_b: (await radio(b, 'ptp-d')).id, distance: 3 });
    expect(noUnit.json()).toHaveProperty('distance_unit');
    expect((await alice.get('/api/wireless-links/')).json().count).toBe(before);
    // Bob cannot link Alice's interfaces.
    const cross = await h.as('bob').post('/api/wireless-links/', { interface_a: c.id, interface_b: wired.id });
    expect(cross.statusCode).toBe(400);
    expect(cross.json()).toHaveProperty('interface_a');
    // Deleting an end's device takes the link with it.
    expect((await alice.delete(`/api/devices/${(a.device as Obj).id}/`)).statusCode).toBe(204);
    expect((await alice.get(`/api/wireless-links/${link.id}/`)).statusCode).toBe(404);
  });
});
