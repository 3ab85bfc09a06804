// IPAM list filters with NetBox's names (family, mask_length, within, within_include, contains, parent, assigned,
// device_id) and what `q` means on prefixes and addresses: an address finds itself and the prefixes holding it
// (most specific first); on addresses, what is typed finds the addresses starting with it (itself first) and a
// network what lies inside it. Values are checked here; a bad one is a 400 naming the parameter.
import { parseBoolean } from '../core/lookups.ts';
import { sql, type RawBuilder } from 'kysely';
import { addListFilters, setQuickSearch } from '../core/crud/read.ts';
import type { CustomFilter } from '../core/crud/list-query.ts';
import { parseInet } from '../core/crud/field-values.ts';
import { isUuid } from '../core/ids.ts';
import { deviceHost, virtualMachineHost, vlanAvailableOn } from './vlan-scope.ts';

const ref = (alias: string, column: string) => sql.ref(`${alias}.${column}`);

/** One value, checked by `parse`; the error names what was expected. */
function single<T>(values: string[], parse: (text: string) => T | null, expected: string, build: (value: T) => RawBuilder<unknown>): RawBuilder<unknown> | { error: string } {
  const out: RawBuilder<unknown>[] = [];
  for (const text of values) {
    const value = parse(text);
    if (value === null) return { error: `"${text.slice(0, 60)}" is not ${expected}.` };
    out.push(build(value));
  }
  return out.length === 1 ? out[0]! : sql`(${sql.join(out, sql` OR `)})`;
}

/** An address or a network in canonical text (`10.0.0.0/8`, `10.1.2.3`), or null. */
function network(text: string): string | null {
  const parsed = parseInet(text.trim());
  if (!parsed) return null;
  return text.includes('/') ? `${parsed.addr.toString()}/${parsed.len}` : parsed.addr.toString();
}

/** A network as typed (`10.1.2.3/24` means its network, 10.1.2.0/24, as NetBox reads it: see netOf), or null. */
function cidr(text: string): string | null {
  return text.includes('/') ? network(text) : null;
}

/** The network of a checked address-with-mask, in SQL. */
const netOf = (value: string) => sql`network(${value}::inet)`;

const family = (column: string): CustomFilter => (values, alias) =>
  single(values, (t) => (t === '4' || t === '6' ? Number(t) : null), '4 or 6', (f) => sql`family(${ref(alias, column)}) = ${f}`);

const maskLength = (column: string, op: '=' | '>=' | '<='): CustomFilter => (values, alias) =>
  single(values, (t) => (/^\d{1,3}$/.test(t) && Number(t) <= 128 ? Number(t) : null), 'a mask length from 0 to 128', (n) => sql`masklen(${ref(alias, column)}) ${sql.raw(op)} ${n}`);

const boolean = (build: (value: boolean, alias: string) => RawBuilder<unknown>): CustomFilter => (values, alias) =>
  single(values, parseBoolean, 'true or false', (v) => build(v, alias));

/** A host of an address row inside a network, with the gist index on address doing the narrowing. */
const hostWithin = (alias: string, net: string) => sql`(${ref(alias, 'address')} && ${netOf(net)} AND host(${ref(alias, 'address')})::inet <<= ${netOf(net)})`;

addListFilters('ipam.prefix', {
  family: family('prefix'),
  mask_length: maskLength('prefix', '='),
  mask_length__gte: maskLength('prefix', '>='),
  mask_length__lte: maskLength('prefix', '<='),
  within: (values, alias) => single(values, cidr, 'a network (10.0.0.0/8)', (n) => sql`${ref(alias, 'prefix')} << ${netOf(n)}`),
  within_include: (values, alias) => single(values, cidr, 'a network (10.0.0.0/8)', (n) => sql`${ref(alias, 'prefix')} <<= ${netOf(n)}`),
  contains: (values, alias) => single(values, network, 'an address or a network', (n) => sql`${ref(alias, 'prefix')} >>= ${n}::inet`),
});

addListFilters('ipam.ipaddress', {
  family: family('address'),
  mask_length: maskLength('address', '='),
  mask_length__gte: maskLength('address', '>='),
  mask_length__lte: maskLength('address', '<='),
  // NetBox's: `10.0.0.1` matches the host whatever its mask; with a mask, that address and mask exactly.
  address: (values, alias) =>
    single(values, network, 'an IP address', (a) => (a.includes('/') ? sql`${ref(alias, 'address')} = ${a}::inet` : sql`host(${ref(alias, 'address')}) = host(${a}::inet)`)),
  parent: (values, alias) => single(values, cidr, 'a network (10.0.0.0/8)', (n) => hostWithin(alias, n)),
  assigned: boolean((v, alias) => sql`(${ref(alias, 'assigned_interface_id')} IS NOT NULL OR ${ref(alias, 'assigned_vm_interface_id')} IS NOT NULL) = ${v}`),
  // The addresses on a device's interfaces (the primary-IP picker), or a VM's.
  device_id: (values, alias) =>
    single(values, (t) => (isUuid(t) ? t.toLowerCase() : null), 'a device id', (id) => sql`${ref(alias, 'assigned_interface_id')} IN (SELECT i.id FROM interfaces i WHERE i.device_id = ${id})`),
  virtual_machine_id: (values, alias) =>
    single(values, (t) => (isUuid(t) ? t.toLowerCase() : null), 'a virtual machine id', (id) => sql`${ref(alias, 'assigned_vm_interface_id')} IN (SELECT v.id FROM vm_interfaces v WHERE v.virtual_machine_id = ${id})`),
});

/** `10.1.2.` or `2001:db8:`: the start of an address, as typed into a search box. */
function partialAddress(text: string): boolean {
  return /^\d{1,3}(\.\d{0,3}){1,3}$/.test(text) || (/^[0-9a-f:]+$/i.test(text) && text.includes(':'));
}

setQuickSearch('ipam.prefix', (text, alias) => {
  const col = ref(alias, 'prefix');
  const net = text.includes('/') ? cidr(text) : network(text);
  if (net) return { where: sql`${col} >>= ${net}::inet`, orderBy: sql`masklen(${col}) DESC` };
  if (partialAddress(text)) return { where: sql`${col}::text LIKE ${`${text.replace(/[\\%_]/g, '')}%`}` };
  return null;
});

setQuickSearch('ipam.ipaddress', (text, alias) => {
  const col = ref(alias, 'address');
  const net = text.includes('/') ? cidr(text) : network(text);
  if (net && text.includes('/')) return { where: hostWithin(alias, net) };
  // Type-ahead, as NetBox's address search: `10.0.0.1` finds itself first, then 10.0.0.10, 10.0.0.100, …
  if (net) return { where: sql`host(${col}) LIKE ${`${net}%`}`, orderBy: sql`(host(${col}) = ${net}) DESC` };
  if (partialAddress(text)) return { where: sql`host(${col}) LIKE ${`${text.replace(/[\\%_]/g, '')}%`}` };
  return null;
});

// NetBox's VLAN search: a number is also a VID, matched exactly (`10` finds VLAN 10, not 100 or 110), beside the
// names holding the text, so a VLAN picker answers to the number engineers call VLANs by; that VLAN comes first.
setQuickSearch('ipam.vlan', (text, alias) => {
  if (!/^\d{1,4}$/.test(text)) return null;
  const vid = ref(alias, 'vid');
  return { where: sql`${vid} = ${Number(text)}`, orderBy: sql`(${vid} = ${Number(text)}) DESC` };
});

// NetBox's names: the VLANs an interface of that device (or virtual machine) may carry. Interface forms pick their
// VLANs through them.
addListFilters('ipam.vlan', {
  available_on_device: (values, alias) =>
    single(values, (t) => (isUuid(t) ? t.toLowerCase() : null), 'a device id', (id) => vlanAvailableOn(alias, deviceHost(id, alias))),
  available_on_virtualmachine: (values, alias) =>
    single(values, (t) => (isUuid(t) ? t.toLowerCase() : null), 'a virtual machine id', (id) => vlanAvailableOn(alias, virtualMachineHost(id, alias))),
});
