// The client program of test/openapi-client.test.ts, as a user of the API would write it: openapi-fetch typed
// by the types openapi-typescript generated from the live document. The test copies this file beside those
// types (./schema.gen.ts), type-checks both with the TypeScript compiler, then runs it against the server.
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.gen.ts';

type ApiError = components['schemas']['Error'];

export interface RoundTrip {
  siteId: string;
  deviceIds: string[];
  listed: { count: number; names: string[] };
  updated: { updated: number; serials: string[] };
  badWrite: { status: number; field: string[]; unchanged: number };
}

/** A created object's id: the create operations answer one object, or a list for a list body. */
function idOf(data: { id?: string } | Array<{ id?: string }> | undefined, what: string): string {
  const one = Array.isArray(data) ? data[0] : data;
  if (!one?.id) throw new Error(`${what} was not created`);
  return one.id;
}

/** The messages an error names for a field: the error envelope maps field names to lists of messages. */
function messagesFor(error: ApiError, field: string): string[] {
  const value = error[field];
  return Array.isArray(value) ? value : [];
}

export async function roundTrip(baseUrl: string, token: string): Promise<RoundTrip> {
  const client = createClient<paths>({ baseUrl, headers: { authorization: `Token ${token}` } });

  const site = await client.POST('/api/sites/', { body: { name: 'Client Site', slug: 'client-site' } });
  const siteId = idOf(site.data, 'the site');
  const maker = await client.POST('/api/manufacturers/', { body: { name: 'Client Maker', slug: 'client-maker' } });
  const type = await client.POST('/api/device-types/', { body: { manufacturer: idOf(maker.data, 'the manufacturer'), model: 'Client Model', slug: 'client-model' } });
  const role = await client.POST('/api/device-roles/', { body: { name: 'Client Role', slug: 'client-role' } });
  const device = { device_type: idOf(type.data, 'the device type'), role: idOf(role.data, 'the role'), site: siteId };
  const first = await client.POST('/api/devices/', { body: { ...device, name: 'client-sw1' } });
  const second = await client.POST('/api/devices/', { body: { ...device, name: 'client-sw2' } });
  const deviceIds = [idOf(first.data, 'client-sw1'), idOf(second.data, 'client-sw2')];

  const list = await client.GET('/api/devices/', { params: { query: { site: siteId } } });
  if (!list.data) throw new Error(`listing the devices failed: ${list.response.status}`);
  const listed = { count: list.data.count ?? 0, names: (list.data.results ?? []).map((d) => d.name ?? '') };

  const bulk = await client.POST('/api/devices/bulk-update/', { body: { ids: deviceIds, fields: { serial: 'SN-CLIENT' } } });
  if (!bulk.data) throw new Error(`the bulk update failed: ${bulk.response.status}`);
  const after = await client.GET('/api/devices/', { params: { query: { site: siteId } } });
  const updated = { updated: bulk.data.updated ?? 0, serials: (after.data?.results ?? []).map((d) => d.serial ?? '') };

  // A device type that does not exist: well-typed, refused by the server with the field named.
  const bad = await client.POST('/api/devices/', { body: { ...device, device_type: '00000000-0000-4000-8000-000000000000', name: 'client-sw3' } });
  if (!bad.error) throw new Error('the bad write was accepted');
  const error: ApiError = bad.error;
  const count = await client.GET('/api/devices/', { params: { query: { site: siteId } } });
  const badWrite = { status: bad.response.status, field: messagesFor(error, 'device_type'), unchanged: count.data?.count ?? -1 };

  return { siteId, deviceIds, listed, updated, badWrite };
}

/** Never called: lines the compiler must refuse, so a passing type-check shows the client is really typed. */
export async function refusedByTheCompiler(baseUrl: string): Promise<void> {
  const client = createClient<paths>({ baseUrl });
  // @ts-expect-error: the document has no such path. (A path of the document, not a GET of it: to refuse a call
  // the compiler works out every path that has a GET, 5 million type instantiations, 3.5 s of the check's 5.)
  const noSuchPath: keyof paths = '/api/no-such-things/';
  void noSuchPath;
  // @ts-expect-error: a device needs its device type, role and site.
  await client.POST('/api/devices/', { body: { name: 'incomplete' } });
  // @ts-expect-error: the bulk update's ids are a list.
  await client.POST('/api/devices/bulk-update/', { body: { ids: 'not-a-list', fields: {} } });
}
