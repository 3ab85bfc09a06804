// Routing rules: which device or VM a routing object belongs to, that referenced interfaces sit on that owner,
// address families, community grammar, prefix-list ranges and the match/set vocabulary of route-policy rules.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { ErrorCollector, fieldError } from '../core/errors.ts';
import { parseInet } from '../core/crud/field-values.ts';
import type { Row } from '../core/crud/serialize.ts';
import { callerTenant } from '../core/access.ts';

/** The merged value of a field on write: the input when sent, else the stored column. */
export function merged(input: Record<string, unknown>, existing: Row | null, key: string, column = key): unknown {
  if (key in input) return input[key] ?? null;
  return existing?.[column] ?? null;
}

/** Exactly one of `device` and `virtual_machine`. */
export function checkOwner(input: Record<string, unknown>, existing: Row | null): { device: string | null; vm: string | null } {
  const device = merged(input, existing, 'device', 'device_id') as string | null;
  const vm = merged(input, existing, 'virtual_machine', 'virtual_machine_id') as string | null;
  if (device && vm) throw fieldError('virtual_machine', 'Belongs to a device or to a virtual machine, not both: set the other to null.');
  if (!device && !vm) throw fieldError('device', 'Set device or virtual_machine (the router this belongs to).');
  return { device, vm };
}

/** A device interface must be on `deviceId`, a VM interface on `vmId`. Unknown ids are left to the reference check. */
export async function checkInterfaceOwner(
  tx: Kysely<DB>,
  ctx: RequestContext,
  field: string,
  ref: { interfaceId?: string | null; vmInterfaceId?: string | null },
  owner: { device: string | null; vm: string | null },
): Promise<void> {
  if (ref.interfaceId) {
    const { rows } = await sql<{ device_id: string; name: string }>`SELECT device_id, name FROM interfaces WHERE id = ${ref.interfaceId} AND ${callerTenant(ctx)}`.execute(tx);
    if (rows[0] && rows[0].device_id !== owner.device) throw fieldError(field, `Interface ${rows[0].name} is not on this ${owner.vm ? 'virtual machine (use a VM interface)' : 'device'}.`);
  }
  if (ref.vmInterfaceId) {
    const { rows } = await sql<{ virtual_machine_id: string; name: string }>`SELECT virtual_machine_id, name FROM vm_interfaces WHERE id = ${ref.vmInterfaceId} AND ${callerTenant(ctx)}`.execute(tx);
    if (rows[0] && rows[0].virtual_machine_id !== owner.vm) throw fieldError(field, `VM interface ${rows[0].name} is not on this ${owner.device ? 'device (use a device interface)' : 'virtual machine'}.`);
  }
}

/** The owner (device / VM) of a parent row, e.g. the BGP instance of a session. */
export async function ownerOf(tx: Kysely<DB>, table: string, id: string): Promise<{ device: string | null; vm: string | null } | null> {
  const { rows } = await sql<{ device_id: string | null; virtual_machine_id: string | null }>`SELECT device_id, virtual_machine_id FROM ${sql.table(table)} WHERE id = ${id}`.execute(tx);
  return rows[0] ? { device: rows[0].device_id, vm: rows[0].virtual_machine_id } : null;
}

export function familyOfText(value: unknown): 4 | 6 | null {
  if (typeof value !== 'string') return null;
  const parsed = parseInet(value);
  return parsed ? (parsed.addr.kind() === 'ipv4' ? 4 : 6) : null;
}

export const ADDRESS_FAMILIES = ['ipv4-unicast', 'ipv6-unicast', 'ipv4-multicast', 'ipv6-multicast', 'l2vpn-evpn', 'vpnv4-unicast', 'vpnv6-unicast', 'ipv4-labeled-unicast', 'ipv4-flowspec'] as const;

export function checkAddressFamilies(errors: ErrorCollector, field: string, value: unknown): void {
  if (!Array.isArray(value)) return;
  const bad = value.filter((v) => !(ADDRESS_FAMILIES as readonly string[]).includes(String(v)));
  if (bad.length) errors.add(field, `Unknown address family ${bad.map((b) => `"${String(b)}"`).join(', ')}; use ${ADDRESS_FAMILIES.join(', ')}.`);
  if (new Set(value).size !== value.length) errors.add(field, 'An address family is listed twice.');
}

export const WELL_KNOWN_COMMUNITIES = ['internet', 'no-export', 'no-advertise', 'local-as', 'no-peer', 'graceful-shutdown', 'blackhole', 'accept-own', 'no-llgr', 'llgr-stale'] as const;

const U16 = 0xffff;
const U32 = 0xffffffff;

/** Standard (RFC 1997) `A:B` of 16-bit parts or a well-known name; large (RFC 8092) `A:B:C` of 32-bit parts; extended `rt|soo A:B`. */
export function communityError(kind: string, value: string): string | null {
  const nums = (parts: string[], max: number) => parts.every((p) => /^\d{1,10}$/.test(p) && Number(p) <= max);
  if (kind === 'standard') {
    if ((WELL_KNOWN_COMMUNITIES as readonly string[]).includes(value)) return null;
    const parts = value.split(':');
    return parts.length === 2 && nums(parts, U16) ? null : `"${value}" is not a standard community: use A:B with each part 0-65535, or a well-known name (${WELL_KNOWN_COMMUNITIES.join(', ')}).`;
  }
  if (kind === 'large') {
    const parts = value.split(':');
    return parts.length === 3 && nums(parts, U32) ? null : `"${value}" is not a large community: use A:B:C with each part 0-4294967295.`;
  }
  const m = /^(rt|soo) (.+)$/.exec(value);
  const rest = m?.[2] ?? '';
  const [admin, assigned, extra] = rest.split(':');
  const ok =
    m !== null &&
    extra === undefined &&
    admin !== undefined &&
    assigned !== undefined &&
    /^\d{1,10}$/.test(assigned) &&
    ((/^\d{1,10}$/.test(admin) && Number(admin) <= U32 && Number(assigned) <= (Number(admin) > U16 ? U16 : U32)) || (admin.includes('.') && parseInet(admin) !== null && Number(assigned) <= U16));
  return ok ? null : `"${value}" is not an extended community: use "rt A:B" or "soo A:B" (A an ASN or IPv4 address).`;
}

/** `ge`/`le` of a prefix-list entry: len < ge <= le <= max, as FRR, EOS and IOS-XE all require. */
export function checkPrefixRange(errors: ErrorCollector, prefix: string, ge: number | null, le: number | null): void {
  const parsed = parseInet(prefix);
  if (!parsed) return;
  const max = parsed.addr.kind() === 'ipv4' ? 32 : 128;
  if (ge !== null && (ge <= parsed.len || ge > max)) errors.add('ge', `ge must be greater than the prefix length ${parsed.len} and at most ${max}.`);
  if (le !== null && (le < parsed.len || le > max)) errors.add('le', `le must be at least the prefix length ${parsed.len} and at most ${max}.`);
  if (ge !== null && le !== null && ge > le) errors.add('le', 'le must be greater than or equal to ge.');
}

type Check = (v: unknown) => string | null;
const isNameList: Check = (v) => (Array.isArray(v) && v.every((x) => typeof x === 'string' && x.length > 0 && x.length <= 100) ? null : 'a list of names');
const isName: Check = (v) => (typeof v === 'string' && v.length > 0 && v.length <= 100 ? null : 'a name');
const intIn =
  (min: number, max: number): Check =>
  (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? null : `a whole number from ${min} to ${max}`;
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v) ? null : `one of ${values.join(', ')}`;
const isBool: Check = (v) => (typeof v === 'boolean' ? null : 'true or false');
const isNextHop: Check = (v) => (typeof v === 'string' && (v === 'peer-address' || v === 'unchanged' || (parseInet(v) !== null && !v.includes('/'))) ? null : 'an IP address, "peer-address" or "unchanged"');
const isPrepend: Check = (v) => (Array.isArray(v) && v.length > 0 && v.length <= 32 && v.every((x) => typeof x === 'number' && Number.isInteger(x) && x >= 1 && x <= U32) ? null : 'a list of 1 to 32 ASNs');
const isCommunityValues: Check = (v) =>
  Array.isArray(v) && v.every((x) => typeof x === 'string' && (communityError('standard', x) === null || communityError('large', x) === null || x === 'none'))
    ? null
    : 'a list of communities (A:B, A:B:C or well-known names)';

// What renders read of a rule (seed-system-templates 3.3). Other keys pass through as `match_extra` / `set_extra`
// for platform-specific options, but must be scalars or lists of scalars so they print predictably.
export const MATCH_KEYS: Record<string, Check> = {
  prefix_lists: isNameList,
  community_lists: isNameList,
  as_path_lists: isNameList,
  next_hop: isName,
  tag: intIn(0, U32),
  metric: intIn(0, U32),
  source_protocol: oneOf('bgp', 'connected', 'static', 'ospf', 'isis', 'kernel'),
  interface: isName,
};
export const SET_KEYS: Record<string, Check> = {
  local_pref: intIn(0, U32),
  med: intIn(0, U32),
  weight: intIn(0, U16),
  origin: oneOf('igp', 'egp', 'incomplete'),
  next_hop: isNextHop,
  as_path_prepend: isPrepend,
  communities: isCommunityValues,
  communities_additive: isBool,
  metric_type: oneOf('type-1', 'type-2', 'internal', 'external'),
  tag: intIn(0, U32),
};

function isScalarish(v: unknown): boolean {
  const scalar = (x: unknown) => x === null || ['string', 'number', 'boolean'].includes(typeof x);
  return scalar(v) || (Array.isArray(v) && v.every(scalar));
}

export function checkRuleJson(errors: ErrorCollector, field: 'match' | 'set', value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const known = field === 'match' ? MATCH_KEYS : SET_KEYS;
  for (const [key, v] of Object.entries(value)) {
    if (!/^[a-z][a-z0-9_]{0,49}$/.test(key)) {
      errors.add(`${field}.${key}`, 'Keys are lowercase letters, digits and underscores.');
      continue;
    }
    const check = known[key];
    const problem = check ? check(v) : isScalarish(v) ? null : 'a value or a list of values';
    if (problem) errors.add(`${field}.${key}`, `Expected ${problem}.`);
  }
}

/** The names a rule's match refers to must exist in the tenant, so a render never names a missing list. */
export async function checkRuleReferences(tx: Kysely<DB>, ctx: RequestContext, errors: ErrorCollector, match: unknown): Promise<void> {
  if (typeof match !== 'object' || match === null || Array.isArray(match)) return;
  const m = match as Record<string, unknown>;
  const lists: Array<[string, string, string[]]> = [
    ['prefix_lists', 'prefix_lists', Array.isArray(m.prefix_lists) ? (m.prefix_lists as string[]) : []],
    ['community_lists', 'community_lists', Array.isArray(m.community_lists) ? (m.community_lists as string[]) : []],
    ['as_path_lists', 'as_path_lists', Array.isArray(m.as_path_lists) ? (m.as_path_lists as string[]) : []],
    ['next_hop', 'prefix_lists', typeof m.next_hop === 'string' ? [m.next_hop] : []],
  ];
  for (const [key, table, names] of lists) {
    const wanted = names.filter((n) => typeof n === 'string');
    if (!wanted.length) continue;
    const { rows } = await sql<{ name: string }>`SELECT name FROM ${sql.table(table)} WHERE ${callerTenant(ctx)} AND name = ANY(${wanted}::text[])`.execute(tx);
    const found = new Set(rows.map((r) => r.name));
    const missing = wanted.filter((n) => !found.has(n));
    if (missing.length) errors.add(`match.${key}`, `No ${table.replace(/_/g, ' ').replace(/s$/, '')} named ${missing.map((n) => `"${n}"`).join(', ')}.`);
  }
}

/** An AS-path regex must compile (POSIX-ish, checked with the JS engine as a fair approximation). */
export function regexError(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    new RegExp(value);
    return null;
  } catch (err) {
    return `Not a valid regular expression: ${(err as Error).message}`;
  }
}

const NET_RE = /^[0-9a-fA-F]{2}(\.[0-9a-fA-F]{4}){1,6}\.[0-9a-fA-F]{4}\.[0-9a-fA-F]{4}\.[0-9a-fA-F]{4}\.00$/;

/** An IS-IS NET: area (1 to 13 bytes), 6-byte system id, selector 00, e.g. 49.0001.1921.6800.1001.00. */
export function netError(value: string): string | null {
  return NET_RE.test(value) ? null : `"${value}" is not an IS-IS NET: use AFI.area.system-id.00, e.g. 49.0001.1921.6800.1001.00.`;
}

/** OSPF area ids are dotted quads or 32-bit numbers; we store the dotted form so 0 and 0.0.0.0 are one area. */
export function normaliseArea(value: string): string | null {
  if (/^\d{1,10}$/.test(value)) {
    const n = Number(value);
    if (n > U32) return null;
    return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
  }
  const parsed = parseInet(value);
  return parsed && parsed.addr.kind() === 'ipv4' && !value.includes('/') ? parsed.addr.toString() : null;
}
