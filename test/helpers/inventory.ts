// Small builders for inventory tests: a site, a role, a device type with interface templates, devices.
import { expect } from 'vitest';
import type { Client } from './harness.ts';

export interface Basics {
  site: string;
  role: string;
  manufacturer: string;
  deviceType: string;
  platform: string;
}

let counter = 0;

/** Numbering starts again at 1 (`Site 1`): each test file expects its own first names, as in a process of its own. */
export function resetInventoryNumbering(): void {
  counter = 0;
}

export async function created(client: Client, path: string, body: Record<string, unknown>): Promise<Record<string, unknown> & { id: string }> {
  const res = await client.post(path, body);
  expect(res.statusCode, `${path} ${res.body}`).toBe(201);
  return res.json();
}

/** A fresh set of the objects a device needs; `interfaces` become interface templates of the type. */
export async function inventoryBasics(client: Client, interfaces: string[] = []): Promise<Basics> {
  const n = ++counter;
  const site = await created(client, '/api/sites/', { name: `Site ${n}`, slug: `site-${n}` });
  const role = await created(client, '/api/device-roles/', { name: `Role ${n}`, slug: `role-${n}` });
  const manufacturer = await created(client, '/api/manufacturers/', { name: `Maker ${n}`, slug: `maker-${n}` });
  const deviceType = await created(client, '/api/device-types/', { manufacturer: manufacturer.id, model: `Model ${n}`, slug: `model-${n}` });
  const platform = await created(client, '/api/platforms/', { name: `Platform ${n}`, slug: `platform-${n}` });
  for (const name of interfaces) await created(client, '/api/interface-templates/', { device_type: deviceType.id, name, type: '10gbase-x-sfpp', poe_mode: name === 'eth1' ? 'pse' : null });
  return { site: site.id, role: role.id, manufacturer: manufacturer.id, deviceType: deviceType.id, platform: platform.id };
}

export async function createDevice(client: Client, b: Basics, name: string, extra: Record<string, unknown> = {}): Promise<Record<string, unknown> & { id: string }> {
  return created(client, '/api/devices/', { name, device_type: b.deviceType, role: b.role, site: b.site, ...extra });
}
