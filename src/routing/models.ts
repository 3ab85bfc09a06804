// Routing: what a config render needs to write FRR, EOS or IOS-XE routing stanzas. Instances belong to a
// device or a VM; catalogs (policies, lists, communities, keychains, BFD profiles) are tenant-wide and named,
// because configs refer to them by name. Keychain keys are secrets: encrypted at rest, never returned, and a
// render prints `<keychain:NAME>` in their place (SPEC "Keychain placeholder in renders").
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { defineModel, type ChoiceOption, type FieldDef, type ComputedField } from '../core/registry.ts';
import { ErrorCollector, fieldError } from '../core/errors.ts';
import { secretTransform } from '../core/secrets.ts';
import { hostOnlyError } from '../ipam/service.ts';
import {
  checkAddressFamilies,
  checkInterfaceOwner,
  checkOwner,
  checkPrefixRange,
  checkRuleJson,
  checkRuleReferences,
  communityError,
  familyOfText,
  merged,
  netError,
  normaliseArea,
  ownerOf,
  regexError,
} from './service.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

const opts = (...values: string[]): ChoiceOption[] => values.map((value) => ({ value, label: value }));
const ACTIONS = opts('permit', 'deny');
const ASN: FieldDef = { kind: 'integer', label: 'ASN', min: 1, max: 4294967295 };
const description: FieldDef = { kind: 'string', maxLength: 200, default: '' };
const sequence: FieldDef = { kind: 'integer', min: 1, max: 4294967294, help: 'Order of evaluation, lowest first; unique within the list.' };
const deviceOwner: FieldDef = { kind: 'fk', target: 'dcim.device', nullable: true, onDelete: 'cascade', help: 'Set this or the virtual machine.' };
const vmOwner: FieldDef = { kind: 'fk', target: 'virtualization.virtualmachine', label: 'Virtual machine', nullable: true, onDelete: 'cascade', help: 'Set this or the device.' };
const vrf: FieldDef = { kind: 'fk', target: 'ipam.vrf', label: 'VRF', nullable: true, onDelete: 'cascade', help: 'Empty for the global table.' };
const bfdProfile: FieldDef = { kind: 'fk', target: 'routing.bfdprofile', label: 'BFD profile', nullable: true, onDelete: 'set_null' };
const keychain: FieldDef = { kind: 'fk', target: 'routing.keychain', nullable: true, onDelete: 'protect' };
const routerId: FieldDef = { kind: 'inet', label: 'Router ID', nullable: true, help: 'An IPv4 address without a mask.' };
const families: FieldDef = { kind: 'string_list', maxLength: 30, default: [], help: 'Address families, e.g. ipv4-unicast, ipv6-unicast, l2vpn-evpn.' };
const interfaceRef: FieldDef = { kind: 'fk', target: 'dcim.interface', nullable: true, onDelete: 'cascade', help: 'A device interface (set this or the VM interface).' };
const vmInterfaceRef: FieldDef = { kind: 'fk', target: 'virtualization.vminterface', label: 'VM interface', nullable: true, onDelete: 'cascade', help: 'A VM interface (set this or the device interface).' };
// Names printed into configs: no spaces or angle brackets (they would break a CLI line or a `<keychain:NAME>` placeholder).
const configName: FieldDef = { kind: 'string', maxLength: 100, unique: true, pattern: /^[^\s<>]+$/, patternMessage: 'No spaces or angle brackets: this name is printed into device configs.' };

function routerIdError(errors: ErrorCollector, input: Record<string, unknown>): void {
  if (typeof input.router_id !== 'string') return;
  if (familyOfText(input.router_id) !== 4) errors.add('router_id', 'A router ID is an IPv4 address.');
  else {
    const p = hostOnlyError(input.router_id);
    if (p) errors.add('router_id', p);
  }
}

// ---------------------------------------------------------------- catalogs

export const bfdProfileModel = defineModel({
  name: 'routing.bfdprofile',
  table: 'bfd_profiles',
  path: '/api/routing/bfd-profiles/',
  label: 'BFD profile',
  tenantScoped: true,
  fields: {
    name: configName,
    min_tx: { kind: 'integer', label: 'Minimum TX interval (ms)', min: 10, max: 60000, default: 300 },
    min_rx: { kind: 'integer', label: 'Minimum RX interval (ms)', min: 10, max: 60000, default: 300 },
    multiplier: { kind: 'integer', min: 2, max: 255, default: 3 },
    echo: { kind: 'boolean', label: 'Echo mode' },
    description,
  },
  searchFields: ['name', 'description'],
  defaultOrdering: ['name'],
});

/** `key_set`: whether a key is stored, the one thing about the key anybody may read. */
const keySetField: ComputedField = {
  label: 'Key set',
  kind: 'boolean',
  schema: { type: 'boolean' },
  async load({ rows }) {
    return new Map(rows.map((r) => [String(r.id), typeof r.key_secret === 'string' && r.key_secret !== '']));
  },
};

export const keychainModel = defineModel({
  name: 'routing.keychain',
  table: 'keychains',
  path: '/api/routing/keychains/',
  label: 'keychain',
  tenantScoped: true,
  fields: {
    name: configName,
    algorithm: { kind: 'choice', choices: opts('md5', 'hmac-sha-1', 'hmac-sha-256', 'hmac-sha-384', 'hmac-sha-512', 'text'), default: 'md5' },
    key: {
      kind: 'string',
      column: 'key_secret',
      maxLength: 512,
      nullable: true,
      secret: true,
      writeOnly: true,
      pattern: /\S/,
      patternMessage: 'The key may not be blank; send null to remove it.',
      transform: secretTransform('key'),
      help: 'Write-only: stored encrypted, never returned. Renders print <keychain:NAME> in its place.',
    },
    description,
  },
  computed: { key_set: keySetField },
  searchFields: ['name', 'description'],
  defaultOrdering: ['name'],
});

export const communityModel = defineModel({
  name: 'routing.community',
  table: 'communities',
  path: '/api/routing/communities/',
  label: 'community',
  labelPlural: 'communities',
  tenantScoped: true,
  displayField: 'value',
  fields: {
    value: { kind: 'string', maxLength: 64, unique: true, help: 'Standard A:B or well-known name, large A:B:C, or extended "rt A:B" / "soo A:B".' },
    kind: { kind: 'choice', choices: opts('standard', 'large', 'extended'), default: 'standard' },
    name: { kind: 'string', maxLength: 100, default: '' },
    description,
  },
  searchFields: ['value', 'name', 'description'],
  defaultOrdering: ['value'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ input, existing }) {
      const value = merged(input, existing, 'value') as string;
      const kind = merged(input, existing, 'kind') as string;
      const problem = communityError(kind ?? 'standard', value);
      if (problem) throw fieldError('value', problem);
    },
  },
});

export const communityListModel = defineModel({
  name: 'routing.communitylist',
  table: 'community_lists',
  path: '/api/routing/community-lists/',
  label: 'community list',
  tenantScoped: true,
  fields: {
    name: configName,
    kind: { kind: 'choice', choices: opts('standard', 'expanded', 'large', 'extended'), default: 'standard', help: 'Expanded lists match with regular expressions.' },
    description,
  },
  searchFields: ['name', 'description'],
  defaultOrdering: ['name'],
});

export const communityListEntryModel = defineModel({
  name: 'routing.communitylistentry',
  table: 'community_list_entries',
  path: '/api/routing/community-list-entries/',
  label: 'community list entry',
  labelPlural: 'community list entries',
  tenantScoped: true,
  displayField: 'sequence',
  fields: {
    community_list: { kind: 'fk', target: 'routing.communitylist', onDelete: 'cascade' },
    sequence,
    action: { kind: 'choice', choices: ACTIONS },
    communities: { kind: 'string_list', maxLength: 64, default: [], help: 'Community values (standard, large or extended lists).' },
    regex: { kind: 'string', maxLength: 200, nullable: true, help: 'Expanded lists only.' },
    description,
  },
  defaultOrdering: ['community_list', 'sequence'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, input, existing }) {
      const listId = merged(input, existing, 'community_list', 'community_list_id') as string;
      const { rows } = await sql<{ kind: string }>`SELECT kind FROM community_lists WHERE id = ${listId}`.execute(tx);
      const kind = rows[0]?.kind;
      if (!kind) return;
      const errors = new ErrorCollector();
      const regex = merged(input, existing, 'regex') as string | null;
      const communities = (merged(input, existing, 'communities') as string[] | null) ?? [];
      if (kind === 'expanded') {
        if (!regex) errors.add('regex', 'An expanded community list matches a regular expression: set regex.');
        const p = regexError(regex);
        if (p) errors.add('regex', p);
      } else {
        if (regex) errors.add('regex', `A ${kind} community list matches values, not regular expressions: use communities.`);
        if (communities.length === 0) errors.add('communities', 'List at least one community.');
        for (const c of communities) {
          const p = communityError(kind, c);
          if (p) errors.add('communities', p);
        }
      }
      errors.throwIfAny();
    },
  },
});

export const asPathListModel = defineModel({
  name: 'routing.aspathlist',
  table: 'as_path_lists',
  path: '/api/routing/as-path-lists/',
  label: 'AS-path list',
  tenantScoped: true,
  fields: { name: configName, description },
  searchFields: ['name', 'description'],
  defaultOrdering: ['name'],
});

export const asPathListEntryModel = defineModel({
  name: 'routing.aspathlistentry',
  table: 'as_path_list_entries',
  path: '/api/routing/as-path-list-entries/',
  label: 'AS-path list entry',
  labelPlural: 'AS-path list entries',
  tenantScoped: true,
  displayField: 'regex',
  fields: {
    as_path_list: { kind: 'fk', target: 'routing.aspathlist', label: 'AS-path list', onDelete: 'cascade' },
    sequence,
    action: { kind: 'choice', choices: ACTIONS },
    regex: { kind: 'string', maxLength: 200, help: 'e.g. ^65000_ or _65010$' },
    description,
  },
  defaultOrdering: ['as_path_list', 'sequence'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ input }) {
      const p = regexError(input.regex);
      if (p) throw fieldError('regex', p);
    },
  },
});

export const prefixListModel = defineModel({
  name: 'routing.prefixlist',
  table: 'prefix_lists',
  path: '/api/routing/prefix-lists/',
  label: 'prefix list',
  tenantScoped: true,
  fields: {
    name: configName,
    family: { kind: 'choice', choices: opts('ipv4', 'ipv6') },
    description,
  },
  searchFields: ['name', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, input, existing }) {
      if (!existing || !('family' in input) || input.family === existing.family) return;
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM prefix_list_entries WHERE prefix_list_id = ${existing.id}`.execute(tx);
      if (rows[0]!.n > 0) throw fieldError('family', 'The list has entries of the other family: remove them before changing the family.');
    },
  },
});

export const prefixListEntryModel = defineModel({
  name: 'routing.prefixlistentry',
  table: 'prefix_list_entries',
  path: '/api/routing/prefix-list-entries/',
  label: 'prefix list entry',
  labelPlural: 'prefix list entries',
  tenantScoped: true,
  displayField: 'prefix',
  fields: {
    prefix_list: { kind: 'fk', target: 'routing.prefixlist', onDelete: 'cascade' },
    sequence,
    action: { kind: 'choice', choices: ACTIONS },
    prefix: { kind: 'cidr' },
    ge: { kind: 'integer', label: 'Minimum length (ge)', nullable: true, min: 0, max: 128 },
    le: { kind: 'integer', label: 'Maximum length (le)', nullable: true, min: 0, max: 128 },
    description,
  },
  defaultOrdering: ['prefix_list', 'sequence'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, input, existing }) {
      const errors = new ErrorCollector();
      const prefix = merged(input, existing, 'prefix') as string;
      const listId = merged(input, existing, 'prefix_list', 'prefix_list_id') as string;
      const { rows } = await sql<{ family: string }>`SELECT family FROM prefix_lists WHERE id = ${listId}`.execute(tx);
      const family = familyOfText(prefix);
      if (rows[0] && family && rows[0].family !== `ipv${family}`) errors.add('prefix', `This is an IPv${family} prefix; the list is ${rows[0].family}.`);
      checkPrefixRange(errors, prefix, merged(input, existing, 'ge') as number | null, merged(input, existing, 'le') as number | null);
      errors.throwIfAny();
    },
  },
});

export const routePolicyModel = defineModel({
  name: 'routing.routepolicy',
  table: 'route_policies',
  path: '/api/routing/route-policies/',
  label: 'route policy',
  labelPlural: 'route policies',
  tenantScoped: true,
  fields: { name: configName, description },
  searchFields: ['name', 'description'],
  defaultOrdering: ['name'],
});

export const routePolicyRuleModel = defineModel({
  name: 'routing.routepolicyrule',
  table: 'route_policy_rules',
  path: '/api/routing/route-policy-rules/',
  label: 'route policy rule',
  tenantScoped: true,
  displayField: 'sequence',
  fields: {
    route_policy: { kind: 'fk', target: 'routing.routepolicy', onDelete: 'cascade' },
    sequence: { ...sequence, max: 65535 },
    action: { kind: 'choice', choices: ACTIONS },
    match: { kind: 'json', jsonObject: true, default: {}, help: 'prefix_lists, community_lists, as_path_lists (names), next_hop (prefix-list name), tag, metric, source_protocol, interface.' },
    set: { kind: 'json', jsonObject: true, default: {}, help: 'local_pref, med, weight, origin, next_hop, as_path_prepend, communities, communities_additive, metric_type, tag.' },
    continue_to: { kind: 'integer', label: 'Continue', nullable: true, min: 1, max: 65535, help: 'On match, continue at this sequence (must be later).' },
    description,
  },
  defaultOrdering: ['route_policy', 'sequence'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, ctx, input, existing }) {
      const errors = new ErrorCollector();
      if ('match' in input) {
        checkRuleJson(errors, 'match', input.match);
        await checkRuleReferences(tx, ctx, errors, input.match);
      }
      if ('set' in input) checkRuleJson(errors, 'set', input.set);
      const cont = merged(input, existing, 'continue_to') as number | null;
      const seq = merged(input, existing, 'sequence') as number;
      if (cont !== null && cont <= seq) errors.add('continue_to', 'Continue must point at a later sequence.');
      errors.throwIfAny();
    },
  },
});

// ---------------------------------------------------------------- per-router configuration

export const staticRouteModel = defineModel({
  name: 'routing.staticroute',
  table: 'static_routes',
  path: '/api/routing/static-routes/',
  label: 'static route',
  tenantScoped: true,
  displayField: 'prefix',
  fields: {
    device: deviceOwner,
    virtual_machine: vmOwner,
    vrf,
    prefix: { kind: 'cidr', help: 'Destination network, e.g. 0.0.0.0/0.' },
    kind: { kind: 'choice', choices: opts('unicast', 'blackhole', 'reject'), default: 'unicast', help: 'blackhole and reject routes have no next hop.' },
    next_hop: { kind: 'inet', nullable: true, help: 'Gateway address without a mask, same family as the prefix.' },
    interface: { kind: 'fk', target: 'dcim.interface', nullable: true, onDelete: 'set_null', help: 'Exit interface (device routes).' },
    vm_interface: { kind: 'fk', target: 'virtualization.vminterface', label: 'VM interface', nullable: true, onDelete: 'set_null', help: 'Exit interface (VM routes).' },
    next_hop_vrf: { kind: 'fk', target: 'ipam.vrf', label: 'Next-hop VRF', nullable: true, onDelete: 'set_null', help: 'For route leaking: the VRF the next hop is in.' },
    distance: { kind: 'integer', label: 'Administrative distance', min: 1, max: 255, default: 1 },
    metric: { kind: 'integer', nullable: true, min: 0, max: 4294967295 },
    // Not `tag`: that list parameter is the tag-slug filter of every model.
    route_tag: { kind: 'integer', label: 'Route tag', column: 'tag', nullable: true, min: 0, max: 4294967295 },
    bfd: { kind: 'boolean', label: 'BFD' },
    description,
  },
  defaultOrdering: ['vrf', 'prefix'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, ctx, input, existing }) {
      const owner = checkOwner(input, existing);
      const errors = new ErrorCollector();
      const prefix = merged(input, existing, 'prefix') as string;
      const kind = merged(input, existing, 'kind') as string;
      const nextHop = merged(input, existing, 'next_hop') as string | null;
      const iface = merged(input, existing, 'interface', 'interface_id') as string | null;
      const vmIface = merged(input, existing, 'vm_interface', 'vm_interface_id') as string | null;
      if (nextHop) {
        const p = hostOnlyError(nextHop);
        if (p && 'next_hop' in input) errors.add('next_hop', p);
        if (familyOfText(nextHop) !== familyOfText(prefix)) errors.add('next_hop', `The next hop must be IPv${familyOfText(prefix)} like the prefix.`);
      }
      if (kind === 'unicast' && !nextHop && !iface && !vmIface) errors.add('next_hop', 'A unicast route needs a next hop or an exit interface.');
      if (kind !== 'unicast' && (nextHop || iface || vmIface)) errors.add('kind', `A ${kind} route has no next hop or interface.`);
      errors.throwIfAny();
      await checkInterfaceOwner(tx, ctx, iface ? 'interface' : 'vm_interface', { interfaceId: iface, vmInterfaceId: vmIface }, owner);
    },
  },
});

/** Shared by the BGP, OSPF and IS-IS instances: one owner, IPv4 router id, one instance per owner and VRF. */
function instanceHooks(table: string, label: string, extra?: (args: { input: Record<string, unknown>; existing: Record<string, unknown> | null; errors: ErrorCollector }) => void) {
  return {
    async validate({ tx, input, existing }: { tx: Kysely<DB>; input: Record<string, unknown>; existing: Record<string, unknown> | null }) {
      const owner = checkOwner(input, existing);
      const errors = new ErrorCollector();
      routerIdError(errors, input);
      extra?.({ input, existing, errors });
      errors.throwIfAny();
      const vrfId = merged(input, existing, 'vrf', 'vrf_id') as string | null;
      const { rows } = await sql<{ id: string }>`SELECT id FROM ${sql.table(table)}
        WHERE ${owner.device ? sql`device_id = ${owner.device}` : sql`virtual_machine_id = ${owner.vm}`}
          AND vrf_id IS NOT DISTINCT FROM ${vrfId}::uuid AND id <> ${(existing?.id as string | undefined) ?? '00000000-0000-0000-0000-000000000000'}::uuid`.execute(tx);
      if (rows.length) throw fieldError('vrf', `This ${owner.device ? 'device' : 'virtual machine'} already has a ${label} in ${vrfId ? 'this VRF' : 'the global table'}.`);
    },
  };
}

export const bgpInstanceModel = defineModel({
  name: 'routing.bgpinstance',
  table: 'bgp_instances',
  path: '/api/routing/bgp-instances/',
  label: 'BGP instance',
  tenantScoped: true,
  displayField: 'asn',
  displayParent: ['device', 'virtual_machine'],
  fields: {
    device: deviceOwner,
    virtual_machine: vmOwner,
    vrf,
    asn: { ...ASN, help: 'Local AS number, 1 to 4294967295.' },
    router_id: routerId,
    graceful_restart: { kind: 'boolean' },
    maximum_paths: { kind: 'integer', nullable: true, min: 1, max: 256 },
    address_families: families,
    bfd_profile: bfdProfile,
    description,
  },
  defaultOrdering: ['device', 'vrf'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: instanceHooks('bgp_instances', 'BGP instance', ({ input, errors }) => checkAddressFamilies(errors, 'address_families', input.address_families)),
});

const peerSettings: Record<string, FieldDef> = {
  remote_asn: { ...ASN, label: 'Remote ASN', nullable: true, required: false },
  remote_asn_mode: { kind: 'choice', label: 'Remote ASN mode', choices: opts('asn', 'external', 'internal'), default: 'asn', help: 'external/internal: FRR\'s "remote-as external|internal" (no number).' },
  address_families: families,
  import_policy: { kind: 'fk', target: 'routing.routepolicy', label: 'Route policy in', nullable: true, onDelete: 'protect' },
  export_policy: { kind: 'fk', target: 'routing.routepolicy', label: 'Route policy out', nullable: true, onDelete: 'protect' },
  bfd_profile: bfdProfile,
  keychain: { ...keychain, help: 'The session password comes from this keychain; renders print <keychain:NAME>.' },
  next_hop_self: { kind: 'boolean' },
  route_reflector_client: { kind: 'boolean' },
  ebgp_multihop: { kind: 'integer', label: 'eBGP multihop', nullable: true, min: 1, max: 255 },
  keepalive: { kind: 'integer', nullable: true, min: 0, max: 65535, help: 'Seconds; set together with the hold time (most platforms configure the pair).' },
  hold_time: { kind: 'integer', nullable: true, min: 0, max: 65535, help: 'Seconds: 0 (never expire) or 3 and more, and more than the keepalive.' },
  maximum_prefix: { kind: 'integer', nullable: true, min: 1, max: 4294967295, help: 'Prefixes accepted from the neighbour before the session is torn down.' },
  allowas_in: { kind: 'integer', label: 'Allow-AS-in', nullable: true, min: 1, max: 10, help: 'Times the local ASN may appear in a received path.' },
  ttl_security_hops: { kind: 'integer', label: 'TTL security hops', nullable: true, min: 1, max: 254 },
  default_originate: { kind: 'boolean' },
  default_originate_policy: { kind: 'fk', target: 'routing.routepolicy', label: 'Default-originate policy', nullable: true, onDelete: 'protect' },
  as_override: { kind: 'boolean', label: 'AS override' },
  remove_private_as: { kind: 'boolean', label: 'Remove private AS' },
  soft_reconfiguration: { kind: 'boolean', help: 'Keep the neighbour\'s unmodified routes (soft-reconfiguration inbound).' },
  capability_extended_nexthop: { kind: 'boolean', label: 'Extended next hop', help: 'IPv4 routes over an IPv6 session (RFC 8950).' },
};

/** Timers as routers accept them: hold 0 disables; otherwise at least 3 s and longer than the keepalive. */
function checkTimers(errors: ErrorCollector, input: Record<string, unknown>, existing: Record<string, unknown> | null): void {
  if (!('keepalive' in input) && !('hold_time' in input)) return;
  const keepalive = merged(input, existing, 'keepalive') as number | null;
  const hold = merged(input, existing, 'hold_time') as number | null;
  if ((keepalive === null) !== (hold === null)) {
    errors.add(keepalive === null ? 'keepalive' : 'hold_time', 'Set the keepalive and the hold time together (or neither).');
    return;
  }
  if (hold === null || keepalive === null || hold === 0) return;
  if (hold < 3) errors.add('hold_time', 'The hold time is 0 (never expire) or at least 3 seconds.');
  else if (keepalive >= hold) errors.add('keepalive', `The keepalive (${keepalive} s) must be shorter than the hold time (${hold} s).`);
}

function checkPeerSettings(errors: ErrorCollector, input: Record<string, unknown>, existing: Record<string, unknown> | null, needAsn: boolean): void {
  checkAddressFamilies(errors, 'address_families', input.address_families);
  checkTimers(errors, input, existing);
  const mode = merged(input, existing, 'remote_asn_mode') as string;
  const asn = merged(input, existing, 'remote_asn');
  if (mode !== 'asn' && asn !== null) errors.add('remote_asn', `With remote_asn_mode "${mode}" the remote ASN is not set.`);
  if (needAsn && mode === 'asn' && asn === null) errors.add('remote_asn', 'Set the remote ASN (or remote_asn_mode external/internal, or a peer group that has one).');
}

export const bgpPeerGroupModel = defineModel({
  name: 'routing.bgppeergroup',
  table: 'bgp_peer_groups',
  path: '/api/routing/bgp-peer-groups/',
  label: 'BGP peer group',
  tenantScoped: true,
  fields: {
    name: configName,
    ...peerSettings,
    update_source: { kind: 'string', maxLength: 64, nullable: true, help: 'Interface name the sessions source from, e.g. Loopback0.' },
    send_community: { kind: 'choice', choices: opts('standard', 'extended', 'large', 'both', 'all'), nullable: true },
    description,
  },
  searchFields: ['name', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ input, existing }) {
      const errors = new ErrorCollector();
      checkPeerSettings(errors, input, existing, false);
      errors.throwIfAny();
    },
  },
});

export const bgpSessionModel = defineModel({
  name: 'routing.bgpsession',
  table: 'bgp_sessions',
  path: '/api/routing/bgp-sessions/',
  label: 'BGP session',
  tenantScoped: true,
  displayField: 'remote_address',
  displayParent: ['instance'],
  fields: {
    instance: { kind: 'fk', target: 'routing.bgpinstance', label: 'BGP instance', onDelete: 'cascade' },
    peer_group: { kind: 'fk', target: 'routing.bgppeergroup', nullable: true, onDelete: 'protect' },
    name: { kind: 'string', maxLength: 100, nullable: true },
    local_address: { kind: 'inet', nullable: true, help: 'Source address of the session (with or without mask).' },
    remote_address: { kind: 'inet', nullable: true, help: 'Neighbour address without a mask; empty for an unnumbered session on the interface.' },
    interface: { kind: 'fk', target: 'dcim.interface', nullable: true, onDelete: 'cascade', help: 'Unnumbered (interface) neighbour.' },
    enabled: { kind: 'boolean', default: true },
    bfd: { kind: 'boolean', label: 'BFD' },
    ...peerSettings,
    prefix_list_in: { kind: 'fk', target: 'routing.prefixlist', nullable: true, onDelete: 'protect' },
    prefix_list_out: { kind: 'fk', target: 'routing.prefixlist', nullable: true, onDelete: 'protect' },
    description,
  },
  defaultOrdering: ['instance', 'remote_address'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, ctx, input, existing }) {
      const errors = new ErrorCollector();
      const peerGroup = merged(input, existing, 'peer_group', 'peer_group_id') as string | null;
      let groupHasAsn = false;
      if (peerGroup) {
        const { rows } = await sql<{ ok: boolean }>`SELECT remote_asn IS NOT NULL OR remote_asn_mode <> 'asn' AS ok FROM bgp_peer_groups WHERE id = ${peerGroup}`.execute(tx);
        groupHasAsn = rows[0]?.ok ?? false;
      }
      checkPeerSettings(errors, input, existing, !groupHasAsn);
      const remote = merged(input, existing, 'remote_address') as string | null;
      const local = merged(input, existing, 'local_address') as string | null;
      const iface = merged(input, existing, 'interface', 'interface_id') as string | null;
      if (!remote && !iface) errors.add('remote_address', 'Set the neighbour address, or an interface for an unnumbered session.');
      if (remote && 'remote_address' in input) {
        const p = hostOnlyError(remote);
        if (p) errors.add('remote_address', p);
      }
      if (remote && local && familyOfText(remote) !== familyOfText(local)) errors.add('local_address', 'The local and remote addresses must be of one family.');
      errors.throwIfAny();
      const instanceId = merged(input, existing, 'instance', 'instance_id') as string;
      const owner = await ownerOf(tx, 'bgp_instances', instanceId);
      if (owner && iface) await checkInterfaceOwner(tx, ctx, 'interface', { interfaceId: iface }, owner);
    },
  },
});

export const ospfInstanceModel = defineModel({
  name: 'routing.ospfinstance',
  table: 'ospf_instances',
  path: '/api/routing/ospf-instances/',
  label: 'OSPF instance',
  tenantScoped: true,
  displayField: 'process_id',
  fields: {
    device: deviceOwner,
    virtual_machine: vmOwner,
    vrf,
    process_id: { kind: 'integer', label: 'Process ID', nullable: true, min: 1, max: 65535 },
    version: { kind: 'integer', min: 2, max: 3, default: 2, help: '2 for IPv4 (OSPFv2), 3 for IPv6 (OSPFv3).' },
    router_id: routerId,
    reference_bandwidth: { kind: 'integer', label: 'Reference bandwidth (Mbit/s)', nullable: true, min: 1, max: 4294967 },
    passive_by_default: { kind: 'boolean' },
    default_originate: { kind: 'boolean' },
    bfd_profile: bfdProfile,
    description,
  },
  defaultOrdering: ['device', 'vrf'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: instanceHooks('ospf_instances', 'OSPF instance'),
});

export const ospfAreaModel = defineModel({
  name: 'routing.ospfarea',
  table: 'ospf_areas',
  path: '/api/routing/ospf-areas/',
  label: 'OSPF area',
  tenantScoped: true,
  displayField: 'area_id',
  fields: {
    instance: { kind: 'fk', target: 'routing.ospfinstance', label: 'OSPF instance', onDelete: 'cascade' },
    area_id: {
      kind: 'string',
      label: 'Area ID',
      maxLength: 15,
      help: 'Dotted (0.0.0.0) or a number (0); stored dotted.',
      transform: async (v) => {
        const area = normaliseArea(String(v));
        if (!area) throw fieldError('area_id', `"${String(v)}" is not an OSPF area: use a number (0) or dotted form (0.0.0.1).`);
        return area;
      },
    },
    name: { kind: 'string', maxLength: 100, default: '' },
    kind: { kind: 'choice', choices: opts('normal', 'stub', 'totally-stub', 'nssa', 'totally-nssa'), default: 'normal' },
    description,
  },
  defaultOrdering: ['instance', 'area_id'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ input, existing }) {
      const kind = merged(input, existing, 'kind') as string;
      const area = typeof input.area_id === 'string' ? normaliseArea(input.area_id) : (existing?.area_id as string | undefined);
      if (area === '0.0.0.0' && kind !== 'normal') throw fieldError('kind', 'The backbone area 0 is always a normal area.');
    },
  },
});

export const ospfInterfaceModel = defineModel({
  name: 'routing.ospfinterface',
  table: 'ospf_interfaces',
  path: '/api/routing/ospf-interfaces/',
  label: 'OSPF interface',
  tenantScoped: true,
  displayField: 'id',
  displayParent: ['interface', 'vm_interface'],
  fields: {
    instance: { kind: 'fk', target: 'routing.ospfinstance', label: 'OSPF instance', onDelete: 'cascade' },
    area: { kind: 'fk', target: 'routing.ospfarea', onDelete: 'cascade' },
    interface: interfaceRef,
    vm_interface: vmInterfaceRef,
    cost: { kind: 'integer', nullable: true, min: 1, max: 65535 },
    network_type: { kind: 'choice', choices: opts('broadcast', 'point-to-point', 'non-broadcast', 'point-to-multipoint'), nullable: true },
    passive: { kind: 'boolean', nullable: true, default: null, help: 'Empty follows the instance\'s "Passive by default".' },
    priority: { kind: 'integer', nullable: true, min: 0, max: 255 },
    hello: { kind: 'integer', label: 'Hello interval (s)', nullable: true, min: 1, max: 65535 },
    dead: { kind: 'integer', label: 'Dead interval (s)', nullable: true, min: 1, max: 65535 },
    bfd: { kind: 'boolean', label: 'BFD' },
    mtu_ignore: { kind: 'boolean', label: 'MTU ignore' },
    authentication: { kind: 'choice', choices: opts('none', 'simple', 'message-digest'), nullable: true },
    keychain,
    description,
  },
  defaultOrdering: ['instance'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, ctx, input, existing }) {
      const instanceId = merged(input, existing, 'instance', 'instance_id') as string;
      const areaId = merged(input, existing, 'area', 'area_id') as string;
      const iface = merged(input, existing, 'interface', 'interface_id') as string | null;
      const vmIface = merged(input, existing, 'vm_interface', 'vm_interface_id') as string | null;
      if (!iface === !vmIface) throw fieldError('interface', 'Set exactly one of interface (device) and vm_interface (virtual machine).');
      const { rows } = await sql<{ instance_id: string }>`SELECT instance_id FROM ospf_areas WHERE id = ${areaId}`.execute(tx);
      if (rows[0] && rows[0].instance_id !== instanceId) throw fieldError('area', 'The area belongs to another OSPF instance.');
      const auth = merged(input, existing, 'authentication') as string | null;
      const kc = merged(input, existing, 'keychain', 'keychain_id');
      if (auth && auth !== 'none' && !kc) throw fieldError('keychain', `${auth} authentication needs a keychain.`);
      const owner = await ownerOf(tx, 'ospf_instances', instanceId);
      if (owner) await checkInterfaceOwner(tx, ctx, iface ? 'interface' : 'vm_interface', { interfaceId: iface, vmInterfaceId: vmIface }, owner);
    },
  },
});

const ISIS_LEVELS = opts('level-1', 'level-2', 'level-1-2');

export const isisInstanceModel = defineModel({
  name: 'routing.isisinstance',
  table: 'isis_instances',
  path: '/api/routing/isis-instances/',
  label: 'IS-IS instance',
  tenantScoped: true,
  displayField: 'net',
  fields: {
    device: deviceOwner,
    virtual_machine: vmOwner,
    vrf,
    process: { kind: 'string', label: 'Process tag', maxLength: 64, nullable: true, pattern: /^[^\s<>]+$/, patternMessage: 'No spaces or angle brackets.' },
    net: { kind: 'string', label: 'NET', maxLength: 64, help: 'Network entity title, e.g. 49.0001.1921.6800.1001.00.' },
    level: { kind: 'choice', choices: ISIS_LEVELS, default: 'level-2' },
    metric_style: { kind: 'choice', choices: opts('narrow', 'wide', 'transition'), default: 'wide' },
    authentication: { kind: 'choice', choices: opts('none', 'text', 'md5'), nullable: true },
    keychain,
    bfd_profile: bfdProfile,
    description,
  },
  defaultOrdering: ['device', 'vrf'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: instanceHooks('isis_instances', 'IS-IS instance', ({ input, errors }) => {
    if (typeof input.net === 'string') {
      const p = netError(input.net);
      if (p) errors.add('net', p);
    }
  }),
});

export const isisInterfaceModel = defineModel({
  name: 'routing.isisinterface',
  table: 'isis_interfaces',
  path: '/api/routing/isis-interfaces/',
  label: 'IS-IS interface',
  tenantScoped: true,
  displayField: 'id',
  displayParent: ['interface', 'vm_interface'],
  fields: {
    instance: { kind: 'fk', target: 'routing.isisinstance', label: 'IS-IS instance', onDelete: 'cascade' },
    interface: interfaceRef,
    vm_interface: vmInterfaceRef,
    families: { kind: 'string_list', maxLength: 4, default: ['ipv4'], help: 'ipv4 and/or ipv6.' },
    level: { kind: 'choice', choices: ISIS_LEVELS, nullable: true, help: 'Empty follows the instance.' },
    metric: { kind: 'integer', nullable: true, min: 1, max: 16777215 },
    network_type: { kind: 'choice', choices: opts('broadcast', 'point-to-point'), nullable: true },
    passive: { kind: 'boolean' },
    hello_interval: { kind: 'integer', nullable: true, min: 1, max: 65535 },
    hello_multiplier: { kind: 'integer', nullable: true, min: 2, max: 100 },
    bfd: { kind: 'boolean', label: 'BFD' },
    keychain,
    description,
  },
  defaultOrdering: ['instance'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, ctx, input, existing }) {
      if (Array.isArray(input.families)) {
        const list = input.families as string[];
        if (list.length === 0 || list.some((f) => f !== 'ipv4' && f !== 'ipv6') || new Set(list).size !== list.length) {
          throw fieldError('families', 'List ipv4, ipv6 or both.');
        }
      }
      const iface = merged(input, existing, 'interface', 'interface_id') as string | null;
      const vmIface = merged(input, existing, 'vm_interface', 'vm_interface_id') as string | null;
      if (!iface === !vmIface) throw fieldError('interface', 'Set exactly one of interface (device) and vm_interface (virtual machine).');
      const owner = await ownerOf(tx, 'isis_instances', merged(input, existing, 'instance', 'instance_id') as string);
      if (owner) await checkInterfaceOwner(tx, ctx, iface ? 'interface' : 'vm_interface', { interfaceId: iface, vmInterfaceId: vmIface }, owner);
    },
  },
});

const MAC_RE = /^[0-9A-Fa-f]{2}([:-][0-9A-Fa-f]{2}){5}$/;

export const vtepModel = defineModel({
  name: 'routing.vtep',
  table: 'vteps',
  path: '/api/routing/vteps/',
  label: 'VTEP',
  tenantScoped: true,
  displayField: 'id',
  displayParent: ['device'],
  fields: {
    device: { kind: 'fk', target: 'dcim.device', onDelete: 'cascade', unique: true, help: 'One VTEP per device.' },
    source_interface: { kind: 'fk', target: 'dcim.interface', nullable: true, onDelete: 'set_null', help: 'Usually a loopback.' },
    source_ip: { kind: 'inet', label: 'Source IP', nullable: true },
    anycast_ip: { kind: 'inet', label: 'Anycast IP', nullable: true, help: 'Shared VTEP address of an MLAG / EVPN multihoming pair.' },
    anycast_gateway_mac: { kind: 'string', label: 'Anycast gateway MAC', maxLength: 17, nullable: true, pattern: MAC_RE, patternMessage: 'Enter a MAC address like 00:1c:73:00:00:99.' },
    arp_suppression: { kind: 'boolean', label: 'ARP suppression' },
    description,
  },
  defaultOrdering: ['device'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, ctx, input, existing }) {
      const device = merged(input, existing, 'device', 'device_id') as string;
      const iface = merged(input, existing, 'source_interface', 'source_interface_id') as string | null;
      await checkInterfaceOwner(tx, ctx, 'source_interface', { interfaceId: iface }, { device, vm: null });
      for (const key of ['source_ip', 'anycast_ip'] as const) {
        const p = hostOnlyError(input[key]);
        if (p) throw fieldError(key, p);
      }
    },
  },
});

export const vniModel = defineModel({
  name: 'routing.vni',
  table: 'vnis',
  path: '/api/routing/vnis/',
  label: 'VNI',
  tenantScoped: true,
  displayField: 'vni',
  fields: {
    vtep: { kind: 'fk', target: 'routing.vtep', label: 'VTEP', onDelete: 'cascade' },
    vni: { kind: 'integer', label: 'VNI', min: 1, max: 16777214 },
    name: { kind: 'string', maxLength: 100, default: '' },
    kind: { kind: 'choice', choices: [{ value: 'l2', label: 'L2 (VLAN)' }, { value: 'l3', label: 'L3 (VRF)' }], help: 'l2 maps a VLAN, l3 a VRF.' },
    vlan: { kind: 'fk', target: 'ipam.vlan', label: 'VLAN', nullable: true, onDelete: 'protect' },
    vrf: { kind: 'fk', target: 'ipam.vrf', label: 'VRF', nullable: true, onDelete: 'protect' },
    mcast_group: { kind: 'inet', label: 'Multicast group', nullable: true, help: 'BUM replication group; leave empty for ingress replication.' },
    ingress_replication: { kind: 'boolean' },
    description,
  },
  defaultOrdering: ['vtep', 'vni'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ input, existing }) {
      const kind = merged(input, existing, 'kind') as string;
      const vlan = merged(input, existing, 'vlan', 'vlan_id');
      const vrfId = merged(input, existing, 'vrf', 'vrf_id');
      if (kind === 'l2' && !vlan) throw fieldError('vlan', 'An L2 VNI maps a VLAN: set vlan.');
      if (kind === 'l2' && vrfId) throw fieldError('vrf', 'An L2 VNI maps a VLAN, not a VRF (use kind l3).');
      if (kind === 'l3' && !vrfId) throw fieldError('vrf', 'An L3 VNI maps a VRF: set vrf.');
      if (kind === 'l3' && vlan) throw fieldError('vlan', 'An L3 VNI maps a VRF, not a VLAN (use kind l2).');
      const group = merged(input, existing, 'mcast_group') as string | null;
      if (group) {
        const parsed = familyOfText(group) === 4 ? /^(22[4-9]|23\d)\./.test(group) : group.toLowerCase().startsWith('ff');
        if (!parsed) throw fieldError('mcast_group', 'Not a multicast address (224.0.0.0/4 or ff00::/8).');
        if (merged(input, existing, 'ingress_replication')) throw fieldError('ingress_replication', 'Use a multicast group or ingress replication, not both.');
      }
    },
  },
});
