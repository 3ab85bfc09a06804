// `q` on a device's components reads as the component is shown (`ams1-leaf07 › mgmt0`): the device's name and the
// component's name together, a device's exact name meaning that device (not ports whose description names it), and
// another tenant's devices changing nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics } from '../../test/helpers/inventory.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  const alice = h.as('alice');
  const b = await inventoryBasics(alice);
  const leaf7 = await createDevice(alice, b, 'cs1-leaf07');
  const leaf70 = await createDevice(alice, b, 'cs1-leaf70');
  const spine = await createDevice(alice, b, 'cs1-spine1');
  for (const d of [leaf7, leaf70]) {
    for (const name of ['mgmt0', 'Ethernet1/3', 'Ethernet1/30']) await created(alice, '/api/interfaces/', { device: d.id, name, type: '10gbase-x-sfpp' });
  }
  await created(alice, '/api/interfaces/', { device: spine.id, name: 'Ethernet1/7', type: '10gbase-x-sfpp', description: 'to cs1-leaf07 Ethernet1/3' });
  await created(alice, '/api/interfaces/', { device: spine.id, name: 'Ethernet1/8', type: '10gbase-x-sfpp', description: 'to cs1-leaf0 something' });
  // Another tenant's device with a name alice's search could mean: it must not change her answers.
  const bob = h.as('bob');
  const bb = await inventoryBasics(bob);
  const other = await createDevice(bob, bb, 'cs1-leaf0');
  await created(bob, '/api/interfaces/', { device: other.id, name: 'mgmt0', type: '10gbase-x-sfpp' });
});
afterAll(async () => {
  await h?.close();
});

async function search(q: string, who: 'alice' | 'bob' = 'alice'): Promise<string[]> {
  const res = await h.as(who).get(`/api/interfaces/?q=${encodeURIComponent(q)}&limit=100`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().results as Array<{ display: string }>).map((r) => r.display).sort();
}

describe('component search by device and name', () => {
  it("finds a device's component by the device's name and the component's name together", async () => {
    expect(await search('cs1-leaf07 mgmt0')).toEqual(['cs1-leaf07 › mgmt0']);
    // As the display writes it, and in any case.
    expect(await search('CS1-LEAF07 › MGMT0')).toEqual(['cs1-leaf07 › mgmt0']);
    expect(await search('cs1-leaf07 Ethernet1/3')).toEqual(['cs1-leaf07 › Ethernet1/3', 'cs1-leaf07 › Ethernet1/30']);
  });

  it("takes a device's exact name for that device: its components only, not ports whose description names it", async () => {
    expect(await search('cs1-leaf07')).toEqual(['cs1-leaf07 › Ethernet1/3', 'cs1-leaf07 › Ethernet1/30', 'cs1-leaf07 › mgmt0']);
  });

  it('matches a part of a device name with the component words, and the own text as before', async () => {
    expect(await search('leaf7 mgmt0')).toEqual(['cs1-leaf70 › mgmt0']);
    expect(await search('leaf0 mgmt0')).toEqual(['cs1-leaf07 › mgmt0']);
    expect(await search('spine1 Ethernet1/7')).toEqual(['cs1-spine1 › Ethernet1/7']);
    // No device is called Ethernet1/3: names and descriptions holding it (the spine port's description does).
    expect(await search('Ethernet1/3')).toEqual(['cs1-leaf07 › Ethernet1/3', 'cs1-leaf07 › Ethernet1/30', 'cs1-leaf70 › Ethernet1/3', 'cs1-leaf70 › Ethernet1/30', 'cs1-spine1 › Ethernet1/7']);
    // A description's words still find it when no device is called so.
    expect(await search('to cs1-leaf07')).toEqual(['cs1-spine1 › Ethernet1/7']);
  });

  it("is not changed by another tenant's device names", async () => {
    // bob has a device called cs1-leaf0; alice has none: her search is the text search, his is his device.
    expect(await search('cs1-leaf0')).toEqual(['cs1-spine1 › Ethernet1/7', 'cs1-spine1 › Ethernet1/8']);
    expect(await search('cs1-leaf0', 'bob')).toEqual(['cs1-leaf0 › mgmt0']);
    expect(await search('cs1-leaf07 mgmt0', 'bob')).toEqual([]);
  });

  it('scopes a list to one device with device_id, together with q', async () => {
    const leaf = (await h.as('alice').get('/api/devices/?name=cs1-leaf70')).json().results[0] as { id: string };
    const res = (await h.as('alice').get(`/api/interfaces/?device_id=${leaf.id}&q=Ethernet1/3`)).json();
    expect(res.results.map((r: { display: string }) => r.display)).toEqual(['cs1-leaf70 › Ethernet1/3', 'cs1-leaf70 › Ethernet1/30']);
  });
});
