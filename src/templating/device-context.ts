// The context a device (or VM) config template renders with (SPEC "Template context: device rendering"):
// device, config_context, interfaces (with link_peer as a plain mapping), ip_addresses, routing, objects, count.
//
// Everything is loaded for a whole batch of subjects at once: each relation is one query for all of them, so a
// 500-device bundle render costs the same number of queries as a 1-device render. Rows reach the template as the
// sandboxed row proxies of proxies.ts (relations fenced to the tenant and the caller's permissions); derived data
// (link_peer, routing) are plain mappings built here, so nothing behind them is reachable from a template.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { requireModel } from '../core/registry.ts';
import { scopeCondition, tenantOf } from '../core/access.ts';
import type { Row } from '../core/crud/serialize.ts';
import { configContextSubject, renderConfigContexts } from '../extras/config-context.ts';
import { loadLinkPeers, type LinkPeer } from '../dcim/cabling.ts';
import { naturalCompare } from '../core/natural-compare.ts';
import { groupBy } from '../core/group-by.ts';
import { emptyRouting, loadRouting } from '../routing/render-view.ts';
import { TEMPLATE_OBJECT, type TemplateObject } from './engine/index.ts';
import { RenderSession, RowGroup, type RowProxy } from './proxies.ts';

export type SubjectKind = 'device' | 'vm';

/** Table names per subject kind: devices and VMs render through one code path. */
export const SUBJECTS = {
  device: { model: 'dcim.device', ifaceModel: 'dcim.interface', ifaceTable: 'interfaces', ifaceOwner: 'device_id', ownerColumn: 'device_id', ipColumn: 'assigned_interface_id' },
  vm: { model: 'virtualization.virtualmachine', ifaceModel: 'virtualization.vminterface', ifaceTable: 'vm_interfaces', ifaceOwner: 'virtual_machine_id', ownerColumn: 'virtual_machine_id', ipColumn: 'assigned_vm_interface_id' },
} as const;

type Plain = Record<string, unknown>;

/** An interface as templates see it: the row, plus `vlan` (the untagged VLAN) and `link_peer` as a plain mapping. */
class InterfaceView implements TemplateObject {
  readonly [TEMPLATE_OBJECT] = true as const;
  constructor(
    private readonly proxy: RowProxy,
    private readonly peer: LinkPeer | null,
  ) {}
  getAttr(name: string): unknown {
    if (name === 'vlan') return this.proxy.getAttr('untagged_vlan');
    // A copy each time: a template can never reach (or change) the peer row or another render's value.
    if (name === 'link_peer') return this.peer ? { ...this.peer, custom_fields: structuredClone(this.peer.custom_fields) } : null;
    return this.proxy.getAttr(name);
  }
  callMethod(name: string, args: unknown[], kwargs: Record<string, unknown>): unknown {
    return this.proxy.callMethod(name, args, kwargs);
  }
  toTemplateString(): string {
    return this.proxy.toTemplateString();
  }
  truthy(): boolean {
    return true;
  }
}

/** An IP address with `assigned_interface_id` (the seed system's documented way to match addresses to ports). */
class AddressView implements TemplateObject {
  readonly [TEMPLATE_OBJECT] = true as const;
  constructor(
    private readonly proxy: RowProxy,
    private readonly interfaceId: string | null,
  ) {}
  getAttr(name: string): unknown {
    if (name === 'assigned_interface_id') return this.interfaceId;
    return this.proxy.getAttr(name);
  }
  callMethod(name: string, args: unknown[], kwargs: Record<string, unknown>): unknown {
    return this.proxy.callMethod(name, args, kwargs);
  }
  toTemplateString(): string {
    return this.proxy.toTemplateString();
  }
  truthy(): boolean {
    return true;
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export interface LoadedSubjects {
  session: RenderSession;
  kind: SubjectKind;
  /** Subject id → template context. */
  contexts: Map<string, Plain>;
}

/**
 * Builds the render context of every subject row (rows as selected with `session.selectList`, already fenced and
 * permission-checked by the caller). A constant number of queries whatever the number of subjects.
 */
export async function loadRenderContexts(session: RenderSession, kind: SubjectKind, subjectRows: Row[]): Promise<LoadedSubjects> {
  const spec = SUBJECTS[kind];
  const ctx = session.ctx;
  const model = requireModel(spec.model);
  const ids = subjectRows.map((r) => String(r.id));
  const contexts = new Map<string, Plain>();
  if (ids.length === 0) return { session, kind, contexts };
  const subjects = new RowGroup(session, model, subjectRows);

  const ifaceModel = requireModel(spec.ifaceModel);
  const ipModel = requireModel('ipam.ipaddress');
  const ownedBy = sql`${sql.ref(`t.${spec.ownerColumn}`)} = ANY(${ids}::uuid[])`;
  const [ifaceRows, configContexts] = await Promise.all([
    session.canView(ifaceModel)
      ? sql<Row>`SELECT ${session.selectList(spec.ifaceTable, 't')} FROM ${sql.table(spec.ifaceTable)} t
          WHERE ${scopeCondition(ctx, ifaceModel, 't')} AND ${sql.ref(`t.${spec.ifaceOwner}`)} = ANY(${ids}::uuid[])`.execute(session.db).then((r) => r.rows)
      : Promise.resolve([] as Row[]),
    renderConfigContexts(session.db, tenantOf(subjectRows[0]!), subjectRows.map(configContextSubject)),
  ]);
  ifaceRows.sort((a, b) => naturalCompare(String(a.name), String(b.name)));
  const ifaceIds = ifaceRows.map((r) => String(r.id));
  const ifaceOwner = new Map(ifaceRows.map((r) => [String(r.id), String(r[spec.ifaceOwner])]));
  const ifaceName = new Map(ifaceRows.map((r) => [String(r.id), String(r.name)]));
  const [peers, ipRows, routing] = await Promise.all([
    kind === 'device' ? loadLinkPeers(session.db, ctx.tenantId, ifaceIds) : Promise.resolve(new Map<string, LinkPeer>()),
    session.canView(ipModel) && ifaceIds.length
      ? sql<Row>`SELECT ${session.selectList('ip_addresses', 't')} FROM ip_addresses t
          WHERE ${scopeCondition(ctx, ipModel, 't')} AND ${sql.ref(`t.${spec.ipColumn}`)} = ANY(${ifaceIds}::uuid[]) ORDER BY t.address`.execute(session.db).then((r) => r.rows)
      : Promise.resolve([] as Row[]),
    loadRouting(session, { kind, ...spec }, ids, ifaceName),
  ]);

  const ifaceGroup = new RowGroup(session, ifaceModel, ifaceRows);
  const ipGroup = new RowGroup(session, ipModel, ipRows);
  const ifacesBy = groupBy(ifaceGroup.proxies, (p) => ifaceOwner.get(String(p.row.id)) ?? null);
  const ipsBy = groupBy(ipGroup.proxies, (p) => ifaceOwner.get(String(p.row[spec.ipColumn])) ?? null);

  for (const subject of subjects.proxies) {
    const id = String(subject.row.id);
    const ctxVars: Plain = {
      device: subject,
      config_context: configContexts.get(id)?.rendered ?? {},
      interfaces: (ifacesBy.get(id) ?? []).map((p) => new InterfaceView(p, kind === 'device' ? peers.get(String(p.row.id)) ?? null : null)),
      ip_addresses: (ipsBy.get(id) ?? []).map((p) => new AddressView(p, str(p.row[spec.ipColumn]))),
      routing: routing.get(id) ?? emptyRouting(routing.catalog),
      objects: [subject],
      count: 1,
    };
    if (kind === 'vm') ctxVars.vm = subject;
    contexts.set(id, ctxVars);
  }
  return { session, kind, contexts };
}

/**
 * The routing block alone, as plain data, for every subject at once (the Ansible inventory's `?routing=1`).
 * Same fence and permissions as a render; a constant number of queries whatever the number of subjects.
 */
export async function loadRoutingBlocks(db: Kysely<DB>, ctx: RequestContext, kind: SubjectKind, ids: string[]): Promise<Map<string, Plain>> {
  const out = new Map<string, Plain>();
  if (ids.length === 0) return out;
  const session = new RenderSession(db, ctx);
  await session.prepare();
  const spec = SUBJECTS[kind];
  const ifaceModel = requireModel(spec.ifaceModel);
  const ifaceRows = session.canView(ifaceModel)
    ? (
        await sql<{ id: string; name: string }>`SELECT t.id, t.name FROM ${sql.table(spec.ifaceTable)} t
          WHERE ${scopeCondition(ctx, ifaceModel, 't')} AND ${sql.ref(`t.${spec.ifaceOwner}`)} = ANY(${ids}::uuid[])`.execute(db)
      ).rows
    : [];
  const routing = await loadRouting(session, { kind, ...spec }, ids, new Map(ifaceRows.map((r) => [String(r.id), String(r.name)])));
  for (const id of ids) out.set(id, routing.get(id) ?? emptyRouting(routing.catalog));
  return out;
}
