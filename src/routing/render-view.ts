// The `routing` block a device (or VM) config template renders with (seed reference §3.3, restricted to what
// Cairn's routing models hold): VRFs, static routes, BGP, OSPF, IS-IS, the VTEP, and the policies, lists,
// communities, keychains and BFD profiles they use, as plain data. Routing owns this view of its models; the
// template context (src/templating/device-context.ts) and the Ansible inventory's `?routing=1` read it.
//
// Each table is read once for all subjects, with the caller's fence and permissions (a render shows what the
// caller could read through the API, no more), so the cost does not grow with the number of subjects.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { requireModel, type ModelDef } from '../core/registry.ts';
import { sameTenant, scopeCondition } from '../core/access.ts';
import type { Row } from '../core/crud/serialize.ts';
import { naturalCompare } from '../core/natural-compare.ts';
import { groupBy } from '../core/group-by.ts';

type Plain = Record<string, unknown>;

/** What the routing view reads through: the render's database, caller and permissions (a RenderSession is one). */
export interface RoutingReader {
  readonly db: Kysely<DB>;
  readonly ctx: RequestContext;
  canView(model: ModelDef): boolean;
}

/** Whose routing: devices or virtual machines, and the columns that tie their rows to them. */
export interface RoutingSubject {
  kind: 'device' | 'vm';
  /** The column of routing rows naming their device or VM. */
  ownerColumn: string;
  ifaceModel: string;
  /** The interface table's column naming its device or VM. */
  ifaceOwner: string;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const byText = (a: string | null, b: string | null): number => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);

/**
 * Reads one model's rows for every subject, fenced to the tenant, or none when the caller may not view the
 * model (a render shows what the caller could read through the API, no more).
 */
async function rowsOf(session: RoutingReader, modelName: string, where: RawBuilder<unknown>, select: RawBuilder<unknown> = sql`t.*`): Promise<Row[]> {
  const model = requireModel(modelName);
  if (!session.canView(model)) return [];
  const { rows } = await sql<Row>`SELECT ${select} FROM ${sql.table(model.table)} t WHERE ${scopeCondition(session.ctx, model, 't')} AND ${where}`.execute(session.db);
  return rows;
}


interface Catalog {
  communities: Plain[];
  keychains: Plain[];
  bfdProfiles: Plain[];
  keychainById: Map<string, string>;
  bfdById: Map<string, string>;
}

export function emptyRouting(catalog: Catalog): Plain {
  return {
    vrfs: [],
    static_routes: [],
    bgp: [],
    ospf: [],
    isis: [],
    vtep: null,
    policies: {},
    prefix_lists: {},
    community_lists: {},
    as_path_lists: {},
    communities: catalog.communities,
    keychains: catalog.keychains,
    keychain_by_name: Object.fromEntries(catalog.keychains.map((k) => [k.name as string, k])),
    bfd_profiles: catalog.bfdProfiles,
    bfd_profile_by_name: Object.fromEntries(catalog.bfdProfiles.map((b) => [b.name as string, b])),
    used_bfd_profiles: [],
  };
}

export type RoutingMap = Map<string, Plain> & { catalog: Catalog };

/** A keychain as a render sees it: never the key, only whether one is set and the placeholder a push tool fills. */
export function keychainView(row: Row): Plain {
  const name = String(row.name);
  return { id: String(row.id), name, algorithm: row.algorithm, key_set: typeof row.key_secret === 'string' && row.key_secret !== '', placeholder: `<keychain:${name}>` };
}

/**
 * The `routing` block of every subject (seed reference §3.3, restricted to what Cairn's routing models hold),
 * in a constant number of queries: each table is read once for all subjects, then policies and the lists they
 * match are read once for the union of what the subjects reference.
 */
export async function loadRouting(session: RoutingReader, subject: RoutingSubject, ids: string[], ifaceName: Map<string, string>): Promise<RoutingMap> {
  const { kind } = subject;
  const owner = subject.ownerColumn;
  const own = sql`${sql.ref(`t.${owner}`)} = ANY(${ids}::uuid[])`;
  const viaInstance = (table: string) => sql`t.instance_id IN (SELECT i.id FROM ${sql.table(table)} i WHERE ${sql.ref(`i.${owner}`)} = ANY(${ids}::uuid[]))`;
  const [statics, bgpInst, sessions, ospfInst, ospfAreas, ospfIfaces, isisInst, isisIfaces, vteps, vnis, keychains, bfds, communities] = await Promise.all([
    rowsOf(session, 'routing.staticroute', own, sql`t.*, host(t.next_hop) AS next_hop_host`),
    rowsOf(session, 'routing.bgpinstance', own, sql`t.*, host(t.router_id) AS router_id_host`),
    rowsOf(session, 'routing.bgpsession', viaInstance('bgp_instances'), sql`t.*, host(t.remote_address) AS remote_host`),
    rowsOf(session, 'routing.ospfinstance', own, sql`t.*, host(t.router_id) AS router_id_host`),
    rowsOf(session, 'routing.ospfarea', viaInstance('ospf_instances')),
    rowsOf(session, 'routing.ospfinterface', viaInstance('ospf_instances')),
    rowsOf(session, 'routing.isisinstance', own),
    rowsOf(session, 'routing.isisinterface', viaInstance('isis_instances')),
    kind === 'device' ? rowsOf(session, 'routing.vtep', own, sql`t.*, host(t.source_ip) AS source_host, host(t.anycast_ip) AS anycast_host`) : Promise.resolve([] as Row[]),
    kind === 'device'
      ? rowsOf(session, 'routing.vni', sql`t.vtep_id IN (SELECT v.id FROM vteps v WHERE v.device_id = ANY(${ids}::uuid[]))`, sql`t.*, host(t.mcast_group) AS mcast_host, (SELECT vid FROM vlans WHERE id = t.vlan_id) AS vlan_vid, (SELECT name FROM vlans WHERE id = t.vlan_id) AS vlan_name`)
      : Promise.resolve([] as Row[]),
    rowsOf(session, 'routing.keychain', sql`true`, sql`t.id, t.name, t.algorithm, t.key_secret`),
    rowsOf(session, 'routing.bfdprofile', sql`true`),
    rowsOf(session, 'routing.community', sql`true`),
  ]);
  // Names only leave this function: the key ciphertext is dropped here (keychainView keeps key_set).
  const keychainList = keychains.map(keychainView).sort((a, b) => byText(a.name as string, b.name as string));
  const bfdList = bfds
    .map((b) => ({ id: String(b.id), name: b.name, min_tx: b.min_tx, min_rx: b.min_rx, multiplier: b.multiplier, echo: b.echo, description: b.description }))
    .sort((a, b) => byText(a.name as string, b.name as string));
  const catalog: Catalog = {
    keychains: keychainList,
    bfdProfiles: bfdList,
    communities: communities.map((c) => ({ id: String(c.id), value: c.value, kind: c.kind, name: c.name })).sort((a, b) => byText(a.value as string, b.value as string)),
    keychainById: new Map(keychainList.map((k) => [k.id as string, k.name as string])),
    bfdById: new Map(bfdList.map((b) => [b.id, b.name as string])),
  };

  // Second round: peer groups, VRFs and policies named by the first round's rows.
  const groupIds = new Set<string>();
  const vrfIds = new Set<string>();
  const policyIds = new Set<string>();
  const prefixListIds = new Set<string>();
  for (const s of sessions) {
    if (typeof s.peer_group_id === 'string') groupIds.add(s.peer_group_id);
    for (const c of ['import_policy_id', 'export_policy_id', 'default_originate_policy_id'] as const) if (typeof s[c] === 'string') policyIds.add(s[c]);
    for (const c of ['prefix_list_in_id', 'prefix_list_out_id'] as const) if (typeof s[c] === 'string') prefixListIds.add(s[c]);
  }
  for (const r of [...statics, ...bgpInst, ...ospfInst, ...isisInst, ...vnis]) if (typeof r.vrf_id === 'string') vrfIds.add(r.vrf_id);
  for (const r of statics) if (typeof r.next_hop_vrf_id === 'string') vrfIds.add(r.next_hop_vrf_id);
  const [groups, ifaceVrfs] = await Promise.all([
    groupIds.size ? rowsOf(session, 'routing.bgppeergroup', sql`t.id = ANY(${[...groupIds]}::uuid[])`) : Promise.resolve([] as Row[]),
    // Interface VRFs of the subjects: every VRF a device must define.
    rowsOf(session, subject.ifaceModel, sql`${sql.ref(`t.${subject.ifaceOwner}`)} = ANY(${ids}::uuid[]) AND t.vrf_id IS NOT NULL`, sql`t.${sql.ref(subject.ifaceOwner)} AS owner, t.vrf_id`),
  ]);
  for (const g of groups) for (const c of ['import_policy_id', 'export_policy_id', 'default_originate_policy_id'] as const) if (typeof g[c] === 'string') policyIds.add(g[c]);
  for (const r of ifaceVrfs) vrfIds.add(String(r.vrf_id));
  const [vrfs, policies, rules] = await Promise.all([
    vrfIds.size
      ? rowsOf(session, 'ipam.vrf', sql`t.id = ANY(${[...vrfIds]}::uuid[])`, sql`t.id, t.name, t.rd, t.l3vni, t.description,
          ARRAY(SELECT rt.name FROM vrf_import_targets j JOIN route_targets rt ON rt.id = j.route_target_id WHERE j.vrf_id = t.id ORDER BY rt.name) AS import_targets,
          ARRAY(SELECT rt.name FROM vrf_export_targets j JOIN route_targets rt ON rt.id = j.route_target_id WHERE j.vrf_id = t.id ORDER BY rt.name) AS export_targets`)
      : Promise.resolve([] as Row[]),
    policyIds.size ? rowsOf(session, 'routing.routepolicy', sql`t.id = ANY(${[...policyIds]}::uuid[])`, sql`t.id, t.name`) : Promise.resolve([] as Row[]),
    policyIds.size ? rowsOf(session, 'routing.routepolicyrule', sql`t.route_policy_id = ANY(${[...policyIds]}::uuid[])`) : Promise.resolve([] as Row[]),
  ]);
  const vrfName = new Map(vrfs.map((v) => [String(v.id), String(v.name)]));
  const policyName = new Map(policies.map((p) => [String(p.id), String(p.name)]));

  // Third round: the lists the policies match on, by name, plus the sessions' own prefix lists.
  const names = { prefix: new Set<string>(), community: new Set<string>(), aspath: new Set<string>() };
  for (const r of rules) {
    const match = (r.match ?? {}) as Plain;
    for (const n of asNames(match.prefix_lists)) names.prefix.add(n);
    if (typeof match.next_hop === 'string') names.prefix.add(match.next_hop);
    for (const n of asNames(match.community_lists)) names.community.add(n);
    for (const n of asNames(match.as_path_lists)) names.aspath.add(n);
  }
  const [prefixLists, prefixEntries, communityLists, communityEntries, asLists, asEntries] = await Promise.all([
    rowsOf(session, 'routing.prefixlist', sql`(t.name = ANY(${[...names.prefix]}::text[]) OR t.id = ANY(${[...prefixListIds]}::uuid[]))`, sql`t.id, t.name, t.family`),
    rowsOf(session, 'routing.prefixlistentry', sql`t.prefix_list_id IN (SELECT p.id FROM prefix_lists p WHERE ${sameTenant('p', 't')} AND (p.name = ANY(${[...names.prefix]}::text[]) OR p.id = ANY(${[...prefixListIds]}::uuid[])))`),
    names.community.size ? rowsOf(session, 'routing.communitylist', sql`t.name = ANY(${[...names.community]}::text[])`, sql`t.id, t.name, t.kind`) : Promise.resolve([] as Row[]),
    names.community.size
      ? rowsOf(session, 'routing.communitylistentry', sql`t.community_list_id IN (SELECT c.id FROM community_lists c WHERE ${sameTenant('c', 't')} AND c.name = ANY(${[...names.community]}::text[]))`)
      : Promise.resolve([] as Row[]),
    names.aspath.size ? rowsOf(session, 'routing.aspathlist', sql`t.name = ANY(${[...names.aspath]}::text[])`, sql`t.id, t.name`) : Promise.resolve([] as Row[]),
    names.aspath.size
      ? rowsOf(session, 'routing.aspathlistentry', sql`t.as_path_list_id IN (SELECT a.id FROM as_path_lists a WHERE ${sameTenant('a', 't')} AND a.name = ANY(${[...names.aspath]}::text[]))`)
      : Promise.resolve([] as Row[]),
  ]);
  const prefixListName = new Map(prefixLists.map((p) => [String(p.id), String(p.name)]));

  const policyView = new Map<string, Plain>();
  const rulesBy = groupBy(rules, (r) => String(r.route_policy_id));
  for (const p of policies) {
    const list = (rulesBy.get(String(p.id)) ?? []).sort((a, b) => Number(a.sequence) - Number(b.sequence));
    policyView.set(String(p.id), {
      id: String(p.id),
      rules: list.map((r) => ({ sequence: r.sequence, action: r.action, description: r.description, match: r.match ?? {}, set: r.set ?? {}, continue: num(r.continue_to) })),
    });
  }
  const listView = (lists: Row[], entries: Row[], fk: string, extra: (l: Row) => Plain, entry: (e: Row) => Plain): Map<string, Plain> => {
    const by = groupBy(entries, (e) => String(e[fk]));
    return new Map(lists.map((l) => [String(l.name), { id: String(l.id), ...extra(l), rules: (by.get(String(l.id)) ?? []).sort((a, b) => Number(a.sequence) - Number(b.sequence)).map(entry) }]));
  };
  const prefixView = listView(prefixLists, prefixEntries, 'prefix_list_id', (l) => ({ family: l.family }), (e) => ({ sequence: e.sequence, action: e.action, prefix: e.prefix, ge: e.ge, le: e.le, description: e.description }));
  const communityView = listView(communityLists, communityEntries, 'community_list_id', (l) => ({ kind: l.kind }), (e) => ({ sequence: e.sequence, action: e.action, communities: e.communities ?? [], regex: e.regex ?? null, description: e.description }));
  const asView = listView(asLists, asEntries, 'as_path_list_id', () => ({}), (e) => ({ sequence: e.sequence, action: e.action, regex: e.regex, description: e.description }));
  const policyIdByName = new Map(policies.map((p) => [String(p.name), String(p.id)]));

  const ref = (map: Map<string, string>, id: unknown): string | null => (typeof id === 'string' ? map.get(id) ?? null : null);
  const vrfOf = (r: Row): string | null => ref(vrfName, r.vrf_id);
  const groupById = new Map(groups.map((g) => [String(g.id), g]));
  const instancesById = new Map(bgpInst.map((i) => [String(i.id), i]));

  const out = new Map<string, Plain>() as RoutingMap;
  out.catalog = catalog;
  const staticBy = groupBy(statics, (r) => str(r[owner]));
  const bgpBy = groupBy(bgpInst, (r) => str(r[owner]));
  const sessionsBy = groupBy(sessions, (r) => String(r.instance_id));
  const ospfBy = groupBy(ospfInst, (r) => str(r[owner]));
  const areasBy = groupBy(ospfAreas, (r) => String(r.instance_id));
  const ospfIfBy = groupBy(ospfIfaces, (r) => String(r.instance_id));
  const isisBy = groupBy(isisInst, (r) => str(r[owner]));
  const isisIfBy = groupBy(isisIfaces, (r) => String(r.instance_id));
  const vtepBy = new Map(vteps.map((v) => [String(v[owner]), v]));
  const vnisBy = groupBy(vnis, (r) => String(r.vtep_id));
  const ifaceVrfBy = groupBy(ifaceVrfs, (r) => String(r.owner));
  const portName = (r: Row): string | null => ref(ifaceName, r.interface_id ?? r.vm_interface_id);

  for (const id of ids) {
    const block = emptyRouting(catalog);
    const usedPolicies = new Set<string>();
    const usedPrefixLists = new Set<string>();
    const usedBfd = new Set<string>();
    const usePolicy = (pid: unknown): string | null => {
      const name = ref(policyName, pid);
      if (name) usedPolicies.add(name);
      return name;
    };
    const useBfd = (bid: unknown): string | null => {
      const name = ref(catalog.bfdById, bid);
      if (name) usedBfd.add(name);
      return name;
    };

    block.static_routes = (staticBy.get(id) ?? [])
      .sort((a, b) => byText(vrfOf(a), vrfOf(b)) || byText(String(a.prefix), String(b.prefix)) || byText(str(a.next_hop_host), str(b.next_hop_host)))
      .map((r) => ({
        id: String(r.id), vrf: vrfOf(r), prefix: r.prefix, kind: r.kind, next_hop: str(r.next_hop_host), next_hop_interface: portName(r),
        next_hop_vrf: ref(vrfName, r.next_hop_vrf_id), distance: r.distance, metric: num(r.metric), tag: num(r.tag), bfd: r.bfd, description: r.description,
      }));

    block.bgp = (bgpBy.get(id) ?? [])
      .sort((a, b) => byText(vrfOf(a), vrfOf(b)))
      .map((inst) => {
        const instSessions = sessionsBy.get(String(inst.id)) ?? [];
        const usedGroups = new Map<string, Row>();
        const sessionViews = instSessions
          .map((s) => {
            const g = typeof s.peer_group_id === 'string' ? groupById.get(s.peer_group_id) ?? null : null;
            if (g) usedGroups.set(String(g.name), g);
            // Effective values: the session's own setting, else its peer group's, else the instance's.
            const pick = <K extends string>(key: K): unknown => (s[key] !== null && s[key] !== undefined ? s[key] : g?.[key] ?? null);
            const ownAsn = s.remote_asn_mode !== 'asn' || s.remote_asn !== null;
            const mode = ownAsn ? s.remote_asn_mode : g?.remote_asn_mode ?? 'asn';
            const remoteAsn = ownAsn ? num(s.remote_asn) : num(g?.remote_asn);
            const families = (s.address_families as string[] | null)?.length ? s.address_families : (g?.address_families as string[] | null)?.length ? g!.address_families : inst.address_families;
            return {
              id: String(s.id), name: s.name ?? null, peer_group: g ? String(g.name) : null, enabled: s.enabled,
              remote_asn: remoteAsn, remote_asn_mode: mode, remote_asn_effective: mode === 'internal' ? num(inst.asn) : remoteAsn,
              local_asn: num(inst.asn), local_address: str(s.local_address), remote_address: str(s.remote_host), interface: portName(s),
              address_families: families ?? [], import_policy: usePolicy(pick('import_policy_id')), export_policy: usePolicy(pick('export_policy_id')),
              bfd: Boolean(s.bfd), bfd_profile: useBfd(pick('bfd_profile_id')), ebgp_multihop: num(pick('ebgp_multihop')),
              update_source: str(g?.update_source), next_hop_self: Boolean(s.next_hop_self) || Boolean(g?.next_hop_self),
              route_reflector_client: Boolean(s.route_reflector_client) || Boolean(g?.route_reflector_client),
              route_reflector_client_from_group: !s.route_reflector_client && Boolean(g?.route_reflector_client),
              send_community: str(g?.send_community), keychain: ref(catalog.keychainById, pick('keychain_id')),
              ...neighbourKnobs(s, g, usePolicy),
              prefix_list_in: ref(prefixListName, s.prefix_list_in_id), prefix_list_out: ref(prefixListName, s.prefix_list_out_id), description: s.description,
            };
          })
          // Addressed neighbours first (by address), then unnumbered ones in port order.
          .sort((a, b) => (a.remote_address === null) !== (b.remote_address === null) ? (a.remote_address === null ? 1 : -1)
            : a.remote_address !== null ? compareAddresses(a.remote_address, b.remote_address!) : naturalCompare(a.interface ?? '', b.interface ?? ''));
        for (const s of sessionViews) {
          if (s.prefix_list_in) usedPrefixLists.add(s.prefix_list_in);
          if (s.prefix_list_out) usedPrefixLists.add(s.prefix_list_out);
        }
        const peerGroups = [...usedGroups.values()]
          .sort((a, b) => byText(String(a.name), String(b.name)))
          .map((g) => ({
            name: g.name, remote_asn: num(g.remote_asn), remote_asn_mode: g.remote_asn_mode, update_source: str(g.update_source), address_families: g.address_families ?? [],
            import_policy: usePolicy(g.import_policy_id), export_policy: usePolicy(g.export_policy_id), bfd_profile: useBfd(g.bfd_profile_id),
            ebgp_multihop: num(g.ebgp_multihop), next_hop_self: Boolean(g.next_hop_self), route_reflector_client: Boolean(g.route_reflector_client),
            send_community: str(g.send_community), keychain: ref(catalog.keychainById, g.keychain_id),
            ...neighbourKnobs(g, null, usePolicy), description: g.description,
          }));
        return {
          id: String(inst.id), vrf: vrfOf(inst), asn: num(inst.asn), router_id: str(inst.router_id_host), graceful_restart: Boolean(inst.graceful_restart),
          maximum_paths: num(inst.maximum_paths), address_families: inst.address_families ?? [], bfd_profile: useBfd(inst.bfd_profile_id),
          sessions: sessionViews, peer_groups: peerGroups, description: inst.description,
        };
      });

    block.ospf = (ospfBy.get(id) ?? [])
      .sort((a, b) => byText(vrfOf(a), vrfOf(b)))
      .map((inst) => ({
        id: String(inst.id), vrf: vrfOf(inst), process_id: num(inst.process_id), version: num(inst.version), router_id: str(inst.router_id_host),
        reference_bandwidth: num(inst.reference_bandwidth), passive_by_default: Boolean(inst.passive_by_default), default_originate: Boolean(inst.default_originate),
        bfd_profile: useBfd(inst.bfd_profile_id),
        areas: (areasBy.get(String(inst.id)) ?? []).sort((a, b) => compareAddresses(String(a.area_id), String(b.area_id))).map((a) => ({ area_id: a.area_id, name: a.name, kind: a.kind })),
        interfaces: (ospfIfBy.get(String(inst.id)) ?? [])
          .map((i) => ({
            interface: portName(i), area: ospfAreas.find((a) => a.id === i.area_id)?.area_id ?? null, cost: num(i.cost), network_type: i.network_type ?? null,
            passive: i.passive === null || i.passive === undefined ? Boolean(inst.passive_by_default) : Boolean(i.passive),
            priority: num(i.priority), hello: num(i.hello), dead: num(i.dead), bfd: Boolean(i.bfd), mtu_ignore: Boolean(i.mtu_ignore),
            authentication: i.authentication === 'none' ? null : i.authentication ?? null, keychain: ref(catalog.keychainById, i.keychain_id), description: i.description,
          }))
          .sort((a, b) => naturalCompare(a.interface ?? '', b.interface ?? '')),
        description: inst.description,
      }));

    block.isis = (isisBy.get(id) ?? [])
      .sort((a, b) => byText(vrfOf(a), vrfOf(b)))
      .map((inst) => ({
        id: String(inst.id), vrf: vrfOf(inst), process: inst.process ?? null, net: inst.net, level: inst.level, level_frr: levelFrr(String(inst.level)),
        metric_style: inst.metric_style, authentication: inst.authentication === 'none' ? null : inst.authentication ?? null,
        keychain: ref(catalog.keychainById, inst.keychain_id), bfd_profile: useBfd(inst.bfd_profile_id),
        interfaces: (isisIfBy.get(String(inst.id)) ?? [])
          .map((i) => ({
            interface: portName(i), families: i.families ?? ['ipv4'], level: i.level ?? inst.level, level_frr: levelFrr(String(i.level ?? inst.level)),
            metric: num(i.metric), network_type: i.network_type ?? null, passive: Boolean(i.passive), hello_interval: num(i.hello_interval),
            hello_multiplier: num(i.hello_multiplier), bfd: Boolean(i.bfd), keychain: ref(catalog.keychainById, i.keychain_id), description: i.description,
          }))
          .sort((a, b) => naturalCompare(a.interface ?? '', b.interface ?? '')),
        description: inst.description,
      }));

    const vtep = vtepBy.get(id);
    block.vtep = vtep
      ? {
          id: String(vtep.id), source_interface: ref(ifaceName, vtep.source_interface_id), source_ip: str(vtep.source_host), anycast_ip: str(vtep.anycast_host),
          anycast_gateway_mac: vtep.anycast_gateway_mac ?? null, arp_suppression: Boolean(vtep.arp_suppression),
          vnis: (vnisBy.get(String(vtep.id)) ?? [])
            .sort((a, b) => byText(String(a.kind), String(b.kind)) || Number(a.vni) - Number(b.vni))
            .map((v) => {
              const vrf = vrfs.find((x) => x.id === v.vrf_id);
              return {
                id: String(v.id), vni: num(v.vni), name: v.name, kind: v.kind, vlan: num(v.vlan_vid), vlan_name: v.vlan_name ?? null, vrf: vrf ? String(vrf.name) : null,
                rd: vrf?.rd ?? null, import_targets: vrf?.import_targets ?? [], export_targets: vrf?.export_targets ?? [],
                ingress_replication: Boolean(v.ingress_replication), mcast_group: str(v.mcast_host),
              };
            }),
          description: vtep.description,
        }
      : null;

    // Every VRF this subject must define, sorted by name.
    const myVrfs = new Set<string>();
    const addVrf = (v: unknown): void => {
      if (typeof v === 'string') myVrfs.add(v);
    };
    for (const r of staticBy.get(id) ?? []) (addVrf(r.vrf_id), addVrf(r.next_hop_vrf_id));
    for (const r of [...(bgpBy.get(id) ?? []), ...(ospfBy.get(id) ?? []), ...(isisBy.get(id) ?? [])]) addVrf(r.vrf_id);
    for (const r of ifaceVrfBy.get(id) ?? []) addVrf(r.vrf_id);
    if (vtep) for (const v of vnisBy.get(String(vtep.id)) ?? []) addVrf(v.vrf_id);
    block.vrfs = vrfs
      .filter((v) => myVrfs.has(String(v.id)))
      .sort((a, b) => byText(String(a.name), String(b.name)))
      .map((v) => ({ id: String(v.id), name: v.name, rd: v.rd ?? null, import_targets: v.import_targets ?? [], export_targets: v.export_targets ?? [], l3vni: num(v.l3vni), description: v.description }));

    // The policy closure: the policies this subject references, and the lists those policies match on.
    const policyOut: Plain = {};
    const prefixOut: Plain = {};
    const communityOut: Plain = {};
    const asOut: Plain = {};
    for (const name of [...usedPolicies].sort()) {
      const view = policyView.get(policyIdByName.get(name)!);
      if (!view) continue;
      policyOut[name] = view;
      for (const rule of view.rules as Array<{ match: Plain }>) {
        for (const n of asNames(rule.match.prefix_lists)) usedPrefixLists.add(n);
        if (typeof rule.match.next_hop === 'string') usedPrefixLists.add(rule.match.next_hop);
        for (const n of asNames(rule.match.community_lists)) if (communityView.has(n)) communityOut[n] = communityView.get(n);
        for (const n of asNames(rule.match.as_path_lists)) if (asView.has(n)) asOut[n] = asView.get(n);
      }
    }
    for (const n of [...usedPrefixLists].sort()) if (prefixView.has(n)) prefixOut[n] = prefixView.get(n);
    block.policies = policyOut;
    block.prefix_lists = prefixOut;
    block.community_lists = sortKeys(communityOut);
    block.as_path_lists = sortKeys(asOut);
    block.used_bfd_profiles = bfdList.filter((b) => usedBfd.has(b.name as string));
    out.set(id, block);
  }
  return out;
}

function asNames(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function sortKeys(o: Plain): Plain {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => byText(a, b)));
}

function levelFrr(level: string): string {
  return level === 'level-1' ? 'level-1' : level === 'level-2' ? 'level-2-only' : 'level-1-2';
}

/** Dotted or colon addresses in numeric order (10.0.0.9 before 10.0.0.10), falling back to text. */
function compareAddresses(a: string, b: string): number {
  const pa = a.split(/[.:/]/);
  const pb = b.split(/[.:/]/);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = parseInt(pa[i]!, a.includes(':') ? 16 : 10);
    const y = parseInt(pb[i]!, b.includes(':') ? 16 : 10);
    if (Number.isNaN(x) || Number.isNaN(y)) {
      if (pa[i] !== pb[i]) return pa[i]! < pb[i]! ? -1 : 1;
    } else if (x !== y) return x - y;
  }
  return pa.length - pb.length;
}

const NEIGHBOUR_NUMBERS = ['keepalive', 'hold_time', 'maximum_prefix', 'allowas_in', 'ttl_security_hops'] as const;
const NEIGHBOUR_FLAGS = ['default_originate', 'as_override', 'remove_private_as', 'soft_reconfiguration', 'capability_extended_nexthop'] as const;

/**
 * Timers, prefix limits and per-neighbour flags with their effective values: a number the session leaves
 * unset comes from its peer group; a flag is on when either turns it on (as routers merge group and neighbour).
 */
function neighbourKnobs(own: Row, group: Row | null, usePolicy: (id: unknown) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of NEIGHBOUR_NUMBERS) {
    const value = own[key] ?? group?.[key] ?? null;
    out[key] = value === null ? null : Number(value);
  }
  for (const key of NEIGHBOUR_FLAGS) out[key] = Boolean(own[key]) || Boolean(group?.[key]);
  out.default_originate_policy = usePolicy(own.default_originate_policy_id ?? group?.default_originate_policy_id ?? null);
  return out;
}
