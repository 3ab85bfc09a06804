// Monitoring rules: what a service's ports are, which IP it watches, and the reconciliation that turns
// monitored services into per-IP check assignments. Set-based: any number of services costs a fixed handful of
// statements per call, so device materialisation, primary-IP changes and the bench all go through one path.
import { groupBy } from '../core/group-by.ts';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { ComputedField, HookArgs } from '../core/registry.ts';
import { requireModel } from '../core/registry.ts';
import { ErrorCollector, fieldError } from '../core/errors.ts';
import type { Row } from '../core/crud/serialize.ts';
import { inTransaction, prepareUpdate, updateRowInTx } from '../core/crud/write.ts';
import { insertRows } from '../core/crud/insert-rows.ts';
import { systemContext, type RequestContext } from '../core/context.ts';
import { callerTenant, sameTenant, tenantAs, tenantKeys, TENANT_COLUMN } from '../core/access.ts';

export const CHECK_PROTOCOLS = ['tcp', 'udp'] as const;
export type CheckProtocol = (typeof CHECK_PROTOCOLS)[number];
export type PortMap = Partial<Record<CheckProtocol, number[]>>;
export type CheckState = 'up' | 'down' | 'unknown';

function isProtocol(value: unknown): value is CheckProtocol {
  return value === 'tcp' || value === 'udp';
}

/** What a service may list ports for (NetBox's choices); only tcp and udp are checked by monitoring. */
export const SERVICE_PROTOCOLS = ['tcp', 'udp', 'sctp'] as const;
type ServiceProtocol = (typeof SERVICE_PROTOCOLS)[number];
type StoredPortMap = Partial<Record<ServiceProtocol, number[]>>;

function isServiceProtocol(value: unknown): value is ServiceProtocol {
  return (SERVICE_PROTOCOLS as readonly unknown[]).includes(value);
}

/** A stored protocol_ports value with its empty and unknown blocks dropped. */
function storedPortMap(value: unknown): StoredPortMap {
  const out: StoredPortMap = {};
  const map = (value ?? {}) as Record<string, unknown>;
  for (const proto of SERVICE_PROTOCOLS) {
    const ports = map[proto];
    if (Array.isArray(ports) && ports.length) out[proto] = ports.map(Number);
  }
  return out;
}

/**
 * The one reader of a service's ports: the protocol_ports map (empty lists dropped) when it has any port, else
 * the legacy single pair, so rows written before the split still resolve.
 */
export function portMapOf(row: { protocol?: unknown; ports?: unknown; protocol_ports?: unknown }): PortMap {
  const out: PortMap = {};
  const map = (row.protocol_ports ?? {}) as Record<string, unknown>;
  for (const proto of CHECK_PROTOCOLS) {
    const ports = map[proto];
    if (Array.isArray(ports) && ports.length) out[proto] = ports.map(Number);
  }
  if (Object.keys(out).length) return out;
  const legacy = Array.isArray(row.ports) ? row.ports.map(Number) : [];
  if (isProtocol(row.protocol) && legacy.length) out[row.protocol] = legacy;
  return out;
}

/** Ports 1–65535, whole numbers, each once: `where` names the field in the error. */
function checkPortList(ports: unknown, field: string, what: string, errors: ErrorCollector): void {
  if (!Array.isArray(ports)) {
    errors.add(field, `${what} must be a list of port numbers.`);
    return;
  }
  const seen = new Set<number>();
  for (const p of ports) {
    if (typeof p !== 'number' || !Number.isInteger(p) || p < 1 || p > 65535) {
      errors.add(field, `${what}: ${JSON.stringify(p)} is not a port number 1–65535.`);
      return;
    }
    if (seen.has(p)) {
      errors.add(field, `${what}: port ${p} is listed twice.`);
      return;
    }
    seen.add(p);
  }
}

/**
 * A service belongs to exactly one device or VM; its ports are tcp/udp lists without duplicates; its own
 * ip_address, when set, is an address on one of the parent's interfaces.
 */
export async function validateService({ tx, ctx, input, existing }: HookArgs & { input: Record<string, unknown>; existing: Record<string, unknown> | null }): Promise<void> {
  const errors = new ErrorCollector();
  const pick = (key: string, column: string): unknown => (key in input ? input[key] : (existing?.[column] ?? null));
  const device = pick('device', 'device_id');
  const vm = pick('virtual_machine', 'virtual_machine_id');
  if (device && vm) errors.add('virtual_machine', 'A service belongs to a device or to a virtual machine, not both: clear one of them.');
  if (!device && !vm) errors.add('device', 'Set the device (or the virtual_machine) this service runs on.');
  if ('protocol_ports' in input) {
    const map = input.protocol_ports as Record<string, unknown>;
    for (const [proto, ports] of Object.entries(map)) {
      if (!isServiceProtocol(proto)) errors.add('protocol_ports', `Unknown protocol "${proto}": use tcp, udp or sctp.`);
      else checkPortList(ports, 'protocol_ports', `The ${proto} ports`, errors);
    }
  }
  if ('ports' in input) checkPortList(input.ports, 'ports', 'Ports', errors);
  errors.throwIfAny();
  const ip = pick('ip_address', 'ip_address_id');
  // Re-check the address when it or the parent changes: moving a service to another device must not keep an
  // address of the old one.
  if (typeof ip === 'string' && ('ip_address' in input || 'device' in input || 'virtual_machine' in input)) {
    const { rows } = await sql<{ device_id: string | null; virtual_machine_id: string | null; address: string }>`
      SELECT i.device_id, vi.virtual_machine_id, a.address::text AS address FROM ip_addresses a
      LEFT JOIN interfaces i ON i.id = a.assigned_interface_id
      LEFT JOIN vm_interfaces vi ON vi.id = a.assigned_vm_interface_id
      WHERE a.id = ${ip} AND ${callerTenant(ctx, 'a')}`.execute(tx);
    const r = rows[0];
    // A missing or foreign id was already reported by the generic reference check.
    if (r) {
      const ok = device ? r.device_id === device : r.virtual_machine_id === vm;
      if (!ok) throw fieldError('ip_address', `${r.address} is not assigned to an interface of this service's ${device ? 'device' : 'virtual machine'}.`);
    }
  }
}

function samePorts(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * Keeps the legacy pair and the map in step after a write: a map that changed (or any map on create) is the
 * source and the pair mirrors its first block (tcp, then udp, then sctp), and a map cleared on update clears the
 * pair's ports too; a pair written alone becomes that block of the map. Updates `row` in place so the answer
 * shows the stored values.
 */
export async function mirrorLegacyPorts(tx: Kysely<DB>, before: Row | null, row: Row): Promise<void> {
  const map = storedPortMap(row.protocol_ports);
  const mapChanged = !before || !samePorts(before.protocol_ports, row.protocol_ports);
  const legacyChanged = !!before && (before.protocol !== row.protocol || !samePorts(before.ports, row.ports));
  let protocol = String(row.protocol);
  let ports = (row.ports as number[]) ?? [];
  let protocolPorts: StoredPortMap = map;
  const first = SERVICE_PROTOCOLS.find((p) => map[p]);
  if (first && (mapChanged || !legacyChanged)) {
    protocol = first;
    ports = map[first]!;
  } else if (before && mapChanged && !legacyChanged) {
    // Every block was removed: the ports are gone, not handed back by the pair the map used to mirror.
    ports = [];
  } else if (isServiceProtocol(protocol)) {
    // The pair was written (or the map is empty): it becomes its protocol's block, other blocks kept.
    protocolPorts = { ...map };
    if (ports.length) protocolPorts[protocol] = ports;
    else delete protocolPorts[protocol];
  }
  if (protocol === row.protocol && samePorts(ports, row.ports) && samePorts(protocolPorts, row.protocol_ports)) return;
  const { rows } = await sql<Row>`UPDATE services SET protocol = ${protocol}, ports = ${ports}::int[], protocol_ports = ${JSON.stringify(protocolPorts)}::jsonb
    WHERE id = ${row.id} RETURNING protocol, ports, protocol_ports`.execute(tx);
  Object.assign(row, rows[0]);
}

/** The target IP of a service, in SQL: its own address, else the device's primary IP, else the VM's. */
const targetIpSql = sql`COALESCE(s.ip_address_id, d.primary_ip4_id, d.primary_ip6_id, v.primary_ip4_id, v.primary_ip6_id)`;

export interface ReconcileOutcome {
  /** Ports requested on the target (including assignments shared with, and owned by, another service). */
  monitored: number;
  /** The target address (without prefix length), or null when none resolves. */
  ip: string | null;
}

interface WantedRow {
  service_id: string;
  tenant: string;
  ip_id: string | null;
  ip: string | null;
  kind: CheckProtocol | null;
  port: number | null;
}

export const RECONCILE_BATCH = 2000;

/**
 * Reconciles the check assignments of `serviceIds` (any tenant; callers pass ids they already hold).
 * Idempotent. For each service: when monitored, with a target IP and at least one port, missing templates
 * (`tcp-443`) and assignments on the target are created stamped with the service, and the assignments it owns
 * for other IPs or ports are removed; otherwise every assignment it owns is removed. An assignment that already
 * exists on (template, IP), manual or owned by another service, is reused and never re-owned; among services
 * reconciled together the earliest created wins. Assignments without a service are never touched.
 * Statements per batch of RECONCILE_BATCH services: about eight, whatever the number of services or ports.
 */
export async function reconcileServiceChecks(tx: Kysely<DB>, serviceIds: string[]): Promise<Map<string, ReconcileOutcome>> {
  const out = new Map<string, ReconcileOutcome>();
  const unique = [...new Set(serviceIds)];
  for (let i = 0; i < unique.length; i += RECONCILE_BATCH) {
    const batch = unique.slice(i, i + RECONCILE_BATCH);
    for (const [k, v] of await reconcileBatch(tx, batch)) out.set(k, v);
  }
  return out;
}

async function reconcileBatch(tx: Kysely<DB>, ids: string[]): Promise<Map<string, ReconcileOutcome>> {
  const { rows } = await sql<WantedRow>`
    SELECT s.id AS service_id, ${tenantAs('s')}, t.ip_id, host(a.address) AS ip, p.kind, p.port
    FROM services s
    LEFT JOIN devices d ON d.id = s.device_id
    LEFT JOIN virtual_machines v ON v.id = s.virtual_machine_id
    CROSS JOIN LATERAL (SELECT ${targetIpSql} AS ip_id) t
    LEFT JOIN ip_addresses a ON a.id = t.ip_id
    LEFT JOIN LATERAL (
      SELECT kv.key AS kind, e.value::text::int AS port
      FROM jsonb_each(s.protocol_ports) kv
      CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(kv.value) = 'array' THEN kv.value ELSE '[]'::jsonb END) e
      WHERE kv.key IN ('tcp', 'udp')
      UNION ALL
      SELECT s.protocol, x FROM unnest(s.ports) x
      WHERE s.protocol IN ('tcp', 'udp')
        AND NOT EXISTS (SELECT 1 FROM jsonb_each(s.protocol_ports) kv WHERE kv.key IN ('tcp', 'udp') AND jsonb_typeof(kv.value) = 'array' AND jsonb_array_length(kv.value) > 0)
    ) p ON s.monitored AND t.ip_id IS NOT NULL
    WHERE s.id = ANY(${ids}::uuid[])
    ORDER BY s.created, s.id, p.kind, p.port`.execute(tx);

  const out = new Map<string, ReconcileOutcome>();
  const wanted = rows.filter((r): r is WantedRow & { ip_id: string; kind: CheckProtocol; port: number } => r.kind !== null && r.ip_id !== null);
  for (const r of rows) {
    const o = out.get(r.service_id) ?? { monitored: 0, ip: r.ip };
    if (r.kind !== null && r.ip_id !== null) o.monitored++;
    out.set(r.service_id, o);
  }
  const slugOf = (r: { kind: string; port: number }) => `${r.kind}-${r.port}`;

  // Owned assignments no longer wanted: teardown, another IP, removed ports or a changed protocol, in one go.
  await sql`DELETE FROM check_assignments ca USING check_templates ct
    WHERE ct.id = ca.template_id AND ca.service_id = ANY(${ids}::uuid[])
      AND NOT EXISTS (
        SELECT 1 FROM unnest(${wanted.map((w) => w.service_id)}::uuid[], ${wanted.map((w) => w.ip_id)}::uuid[], ${wanted.map(slugOf)}::text[]) w(s, ip, slug)
        WHERE w.s = ca.service_id AND w.ip = ca.ip_address_id AND w.slug = ct.slug)`.execute(tx);
  if (wanted.length === 0) return out;

  const templateIds = await ensureCheckTemplates(tx, wanted);

  // First creator owns: rows are in service creation order, so the first service per (template, IP) is kept.
  const candidates = new Map<string, { tenant: string; template: string; ip: string; service: string }>();
  for (const w of wanted) {
    const template = templateIds.get(`${w.tenant}/${slugOf(w)}`)!;
    const key = `${template}/${w.ip_id}`;
    if (!candidates.has(key)) candidates.set(key, { tenant: w.tenant, template, ip: w.ip_id, service: w.service_id });
  }
  const list = [...candidates.values()];
  const { rows: existing } = await sql<{ template_id: string; ip_address_id: string }>`
    SELECT ca.template_id, ca.ip_address_id FROM check_assignments ca
    JOIN unnest(${list.map((c) => c.template)}::uuid[], ${list.map((c) => c.ip)}::uuid[]) w(template, ip)
      ON ca.template_id = w.template AND ca.ip_address_id = w.ip`.execute(tx);
  const present = new Set(existing.map((e) => `${e.template_id}/${e.ip_address_id}`));
  const missing = list.filter((c) => !present.has(`${c.template}/${c.ip}`));
  // Derived by the server, so made by the system user, through the core's write path (change log, search index).
  for (const [tenant, group] of groupBy(missing, (c) => c.tenant)) {
    const now = new Date().toISOString();
    await insertRows(tx, systemContext(tenant), requireModel('monitoring.checkassignment'),
      group.map((c) => ({ template_id: c.template, ip_address_id: c.ip, service_id: c.service, next_run: now })),
      { skipExistingOn: ['template_id', 'ip_address_id'] });
  }
  return out;
}

/**
 * Get-or-create the check template `<kind>-<port>` of each wanted port in its tenant; an existing template with
 * that slug is reused as it is, even if a user edited it. Returns `tenant/slug` → template id.
 */
async function ensureCheckTemplates(tx: Kysely<DB>, wanted: Array<{ tenant: string; kind: CheckProtocol; port: number }>): Promise<Map<string, string>> {
  const distinct = new Map<string, { tenant: string; kind: CheckProtocol; port: number; slug: string }>();
  for (const w of wanted) {
    const slug = `${w.kind}-${w.port}`;
    distinct.set(`${w.tenant}/${slug}`, { tenant: w.tenant, kind: w.kind, port: w.port, slug });
  }
  const all = [...distinct.values()];
  const lookup = async (items: typeof all) => {
    const { rows } = await sql<{ id: string; tenant: string; slug: string }>`
      SELECT ct.id, ${tenantAs('ct')}, ct.slug FROM check_templates ct
      JOIN ${tenantKeys('w', items.map((t) => t.tenant), [{ name: 'slug', type: 'text', values: items.map((t) => t.slug) }])}
        ON ${sameTenant('ct', 'w')} AND ct.slug = w.slug`.execute(tx);
    return rows;
  };
  const ids = new Map<string, string>();
  for (const r of await lookup(all)) ids.set(`${r.tenant}/${r.slug}`, r.id);
  const missing = all.filter((t) => !ids.has(`${t.tenant}/${t.slug}`));
  for (const [tenant, group] of groupBy(missing, (t) => t.tenant)) {
    const made = await insertRows(tx, systemContext(tenant), requireModel('monitoring.checktemplate'),
      group.map((t) => ({ name: `${t.kind.toUpperCase()} ${t.port}`, slug: t.slug, kind: t.kind, port: t.port })),
      { skipExistingOn: [TENANT_COLUMN, 'slug'] });
    for (const r of made) ids.set(`${tenant}/${String(r.slug)}`, String(r.id));
  }
  // A concurrent transaction may have created some between our lookup and insert: read those back.
  const raced = all.filter((t) => !ids.has(`${t.tenant}/${t.slug}`));
  if (raced.length) for (const r of await lookup(raced)) ids.set(`${r.tenant}/${r.slug}`, r.id);
  return ids;
}

/**
 * Before services are deleted: drop the assignments they own, then reconcile the other monitored services that
 * target the same IPs, in the same transaction, so a check they shared comes back at once owned by the next.
 */
export async function releaseChecksOfServices(tx: Kysely<DB>, serviceIds: string[]): Promise<void> {
  if (serviceIds.length === 0) return;
  const { rows: freed } = await sql<{ ip: string }>`DELETE FROM check_assignments WHERE service_id = ANY(${serviceIds}::uuid[])
    RETURNING ip_address_id AS ip`.execute(tx);
  if (freed.length === 0) return;
  const ips = [...new Set(freed.map((r) => r.ip))];
  const { rows } = await sql<{ id: string }>`SELECT s.id FROM services s
    LEFT JOIN devices d ON d.id = s.device_id
    LEFT JOIN virtual_machines v ON v.id = s.virtual_machine_id
    WHERE s.monitored AND NOT (s.id = ANY(${serviceIds}::uuid[])) AND ${targetIpSql} = ANY(${ips}::uuid[])`.execute(tx);
  await reconcileServiceChecks(tx, rows.map((r) => r.id));
}

/**
 * After devices or VMs were updated (one, or a bulk update at once): reconcile the monitored services of those
 * whose primary IP changed, in one query and one reconciliation whatever the number of rows.
 */
export async function reconcileParentServices(tx: Kysely<DB>, parent: 'device' | 'vm', changes: Array<{ before: Row; row: Row }>): Promise<void> {
  const ids = changes
    .filter(({ before, row }) => before.primary_ip4_id !== row.primary_ip4_id || before.primary_ip6_id !== row.primary_ip6_id)
    .map(({ row }) => String(row.id));
  if (ids.length === 0) return;
  const column = parent === 'device' ? sql.ref('device_id') : sql.ref('virtual_machine_id');
  const { rows } = await sql<{ id: string }>`SELECT id FROM services WHERE ${column} = ANY(${ids}::uuid[]) AND monitored`.execute(tx);
  await reconcileServiceChecks(tx, rows.map((r) => r.id));
}

/**
 * After addresses were updated (one, or a bulk update): a service whose own address left its device's or VM's
 * interfaces no longer watches it and falls back to the primary IP, reconciled at once rather than at the
 * service's next save (which would refuse the stale address).
 */
export async function releaseMovedAddresses(tx: Kysely<DB>, changes: Array<{ before: Row; row: Row }>): Promise<void> {
  const ids = changes
    .filter(({ before, row }) => before.assigned_interface_id !== row.assigned_interface_id || before.assigned_vm_interface_id !== row.assigned_vm_interface_id)
    .map(({ row }) => String(row.id));
  if (ids.length === 0) return;
  const { rows } = await sql<{ id: string; monitored: boolean }>`UPDATE services s SET ip_address_id = NULL
    FROM ip_addresses a
    LEFT JOIN interfaces i ON i.id = a.assigned_interface_id
    LEFT JOIN vm_interfaces vi ON vi.id = a.assigned_vm_interface_id
    WHERE s.ip_address_id = a.id AND a.id = ANY(${ids}::uuid[])
      AND NOT coalesce(i.device_id = s.device_id OR vi.virtual_machine_id = s.virtual_machine_id, false)
    RETURNING s.id, s.monitored`.execute(tx);
  await reconcileServiceChecks(tx, rows.filter((r) => r.monitored).map((r) => r.id));
}

/**
 * Before addresses are deleted: monitored services that target them (their own address, or the primary IP of
 * their device or VM they fall back to) move to their next target now, in the same transaction, instead of at
 * their next save. The references are cleared first, as ON DELETE SET NULL would a moment later, so the
 * reconciliation sees the target each service will have.
 */
export async function retargetServicesOfAddresses(tx: Kysely<DB>, ipIds: string[]): Promise<void> {
  if (ipIds.length === 0) return;
  const { rows } = await sql<{ id: string }>`SELECT s.id FROM services s
    LEFT JOIN devices d ON d.id = s.device_id
    LEFT JOIN virtual_machines v ON v.id = s.virtual_machine_id
    WHERE s.monitored AND ${targetIpSql} = ANY(${ipIds}::uuid[])`.execute(tx);
  if (rows.length === 0) return;
  const gone = sql`${ipIds}::uuid[]`;
  await sql`UPDATE services SET ip_address_id = NULL WHERE ip_address_id = ANY(${gone})`.execute(tx);
  for (const table of ['devices', 'virtual_machines']) {
    await sql`UPDATE ${sql.table(table)} SET
        primary_ip4_id = CASE WHEN primary_ip4_id = ANY(${gone}) THEN NULL ELSE primary_ip4_id END,
        primary_ip6_id = CASE WHEN primary_ip6_id = ANY(${gone}) THEN NULL ELSE primary_ip6_id END
      WHERE primary_ip4_id = ANY(${gone}) OR primary_ip6_id = ANY(${gone})`.execute(tx);
  }
  await reconcileServiceChecks(tx, rows.map((r) => r.id));
}

/**
 * Device creation: one service per service template of the device's type whose name the device lacks
 * (idempotent by name), carrying `monitor` into `monitored`, in one insert; then the monitored ones reconciled.
 */
export async function materializeDeviceServices({ tx, ctx, row }: HookArgs & { row: Record<string, unknown> }): Promise<void> {
  const { rows: templates } = await sql<{ name: string; protocol: string; ports: number[]; protocol_ports: Record<string, unknown>; monitor: boolean; description: string }>`
    SELECT t.name, t.protocol, t.ports, t.protocol_ports, t.monitor, t.description FROM device_type_services t
    WHERE t.device_type_id = ${row.device_type_id} AND ${callerTenant(ctx, 't')}
      AND NOT EXISTS (SELECT 1 FROM services s WHERE s.device_id = ${row.id} AND s.name = t.name)
    ORDER BY t.name`.execute(tx);
  if (templates.length === 0) return;
  // Mirror here: the set-based insert runs no per-row hook, and saving a service mirrors its ports. Every protocol's ports are
  // kept (sctp too); only tcp and udp are checked.
  const shaped = templates.map((t) => {
    const map = storedPortMap(t.protocol_ports);
    if (Object.keys(map).length === 0 && isServiceProtocol(t.protocol) && Array.isArray(t.ports) && t.ports.length) map[t.protocol] = t.ports.map(Number);
    const first = SERVICE_PROTOCOLS.find((p) => map[p]);
    return { ...t, protocol: first ?? (isServiceProtocol(t.protocol) ? t.protocol : 'tcp'), ports: first ? map[first]! : [], protocol_ports: map };
  });
  const created = await insertRows(
    tx,
    ctx,
    requireModel('monitoring.service'),
    shaped.map((t) => ({ device_id: row.id, name: t.name, protocol: t.protocol, ports: t.ports, protocol_ports: t.protocol_ports, monitored: t.monitor, description: t.description })),
    { skipExistingOn: ['device_id', 'name'] },
  );
  await reconcileServiceChecks(tx, created.filter((r) => r.monitored).map((r) => String(r.id)));
}

/** The worst state first: a service is as healthy as its sickest check. */
const STATE_RANK: Record<CheckState, number> = { down: 2, unknown: 1, up: 0 };

async function loadServiceCheckSummary(db: Kysely<DB>, rows: Record<string, unknown>[]): Promise<Map<string, { count: number; status: CheckState }>> {
  const out = new Map<string, { count: number; status: CheckState }>();
  const ids = rows.map((r) => String(r.id));
  if (ids.length === 0) return out;
  const { rows: counts } = await sql<{ service_id: string; state: CheckState; n: number }>`
    SELECT service_id, state, count(*)::int AS n FROM check_assignments WHERE service_id = ANY(${ids}::uuid[]) GROUP BY 1, 2`.execute(db);
  for (const c of counts) {
    const o = out.get(c.service_id) ?? { count: 0, status: 'up' as CheckState };
    o.count += c.n;
    const state: CheckState = c.state in STATE_RANK ? c.state : 'unknown';
    if (STATE_RANK[state] > STATE_RANK[o.status]) o.status = state;
    out.set(c.service_id, o);
  }
  return out;
}

/** Loaded once per page and shared by the two computed fields of the same rows. */
const summaries = new WeakMap<Record<string, unknown>[], Promise<Map<string, { count: number; status: CheckState }>>>();
function summaryOf(db: Kysely<DB>, rows: Record<string, unknown>[]) {
  let p = summaries.get(rows);
  if (!p) {
    p = loadServiceCheckSummary(db, rows);
    summaries.set(rows, p);
  }
  return p;
}

export const checkCountField: ComputedField = {
  label: 'Checks',
  kind: 'number',
  schema: { type: 'integer', description: 'Check assignments this service owns; 0 while monitored means no target IP yet.' },
  async load({ db, rows }) {
    const s = await summaryOf(db, rows);
    return new Map(rows.map((r) => [String(r.id), s.get(String(r.id))?.count ?? 0]));
  },
};

export const serviceStatusField: ComputedField = {
  label: 'Status',
  kind: 'choice',
  options: [{ value: 'up', label: 'Up' }, { value: 'down', label: 'Down' }, { value: 'unknown', label: 'Unknown' }],
  schema: { type: 'string', enum: ['up', 'down', 'unknown'], description: 'The worst state of the checks it owns, or unknown without checks.' },
  async load({ db, rows }) {
    const s = await summaryOf(db, rows);
    return new Map(rows.map((r) => [String(r.id), s.get(String(r.id))?.status ?? 'unknown']));
  },
};

/**
 * The legacy `/monitor/` action: sets monitored (through the ordinary update, so it is change-logged and
 * reconciled) and reports what is watched. The flag stays on even when no IP resolves yet.
 */
export async function monitorService(db: Kysely<DB>, ctx: RequestContext, id: string): Promise<ReconcileOutcome> {
  const model = requireModel('monitoring.service');
  const input = await prepareUpdate(model, { monitored: true }, 'patch');
  return inTransaction(db, async (tx) => {
    await updateRowInTx(tx, ctx, model, id, input, 'patch');
    return (await reconcileServiceChecks(tx, [id])).get(id) ?? { monitored: 0, ip: null };
  });
}
