// Which NetBox table becomes which Cairn model, in the order they are written (a table after the tables its
// required references point at). A field the entry does not name is mapped by convention: a NetBox column of the
// same name; for a reference `<field>_id` (the NetBox table it points at comes from NetBox's own foreign keys); a
// `status` reference from NetBox's status string; `owner` from NetBox's object tenant; tags from extras_taggeditem;
// custom_fields from custom_field_data. So a model added to Cairn later needs one line here, plus entries in
// `columns` only where NetBox names or shapes a value differently.
import type { NetBoxRow } from './source.ts';
import { TERMINATION_TYPES } from '../dcim/cable-ends.ts';

/** What a column function can ask about the import so far. */
export interface MapContext {
  version: string;
  /** The Cairn id of NetBox row `id` of `table` (imported earlier in this run), or null. */
  ref(table: string, id: unknown): string | null;
  /** A generic reference (content type + id): the Cairn model and id, or null when that model has no home. */
  object(contentTypeId: unknown, id: unknown): { model: string; id: string } | null;
  /** The Cairn model a content type names, or null. */
  modelOfContentType(contentTypeId: unknown): string | null;
  /** NetBox's name of a content type's model (`dcim.consoleport`). */
  netboxTypeName(contentTypeId: unknown): string;
  /** Rows of a table listed in the entry's `preload`, by id. */
  lookup(table: string, id: unknown): NetBoxRow | null;
  /** All rows of a table listed in the entry's `preload`. */
  rowsOf(table: string): NetBoxRow[];
  /** The Cairn user a NetBox user became. */
  user(id: unknown): string | null;
  /** Counts a row whose value was adapted to Cairn's rules (listed in the report with the count). */
  note(text: string): void;
}

/** A Cairn field's value: a NetBox column, or a function of the row; null leaves the field to its default. */
export type ColumnSource = string | ((row: NetBoxRow, cx: MapContext) => unknown) | null;

/** NetBox's join table of a many-to-many field: `from` points at this table's row, `to` at the related row. */
export interface JoinTable {
  table: string | string[];
  from: string;
  to: string;
}

export interface TableMapping {
  /** The NetBox table (the first that exists, where releases renamed it). */
  table: string | string[];
  model: string;
  columns?: Record<string, ColumnSource>;
  m2m?: Record<string, JoinTable>;
  /** Tables the column functions read with lookup()/rowsOf(). */
  preload?: string[];
  /** Extra expressions read with each row (`t` is the table). */
  select?: (version: string, columns: Set<string>) => string;
  /** A reason to leave a row out (reported), or null. */
  skip?: (row: NetBoxRow, cx: MapContext) => string | null;
  /**
   * Added to NetBox's id to make the object's number, when two NetBox tables share one Cairn model (config
   * templates and export templates are both Cairn export templates): each keeps a fixed, distinct number.
   */
  numidOffset?: number;
  /** NetBox columns the column functions read (so the report does not list them as values without a home). */
  reads?: string[];
  /** Written after the rows by the importer: the ends of cables. */
  special?: 'cable_terminations';
}

const CONFIG_TEMPLATE_NUMIDS = 1_000_000;

/** NetBox's blank choice ('' before 4.2, null after) as Cairn's null. */
const blankAsNull = (column: string) => (row: NetBoxRow) => (row[column] === '' ? null : row[column]);

/** A generic NetBox reference (`<prefix>_type_id` + `<prefix>_id`) that Cairn splits into one field per model. */
const genericAs = (prefix: string, model: string) => (row: NetBoxRow, cx: MapContext) => {
  const target = cx.object(row[`${prefix}_type_id`], row[`${prefix}_id`]);
  return target?.model === model ? target.id : null;
};

/**
 * NetBox's scoped VLAN groups, and 4.2's scoped prefixes and clusters: the site or region the scope names. A 4.2
 * prefix or cluster (they have only a site in Cairn) scoped to a location is put on that location's site (NetBox's
 * cached `_site_id`); one scoped to a region or site group gets no site. Both are counted in the report.
 */
const scopeAs = (model: string) => (row: NetBoxRow, cx: MapContext) => {
  if (row.scope_type_id === undefined) return row.site_id !== undefined && model === 'organization.site' ? cx.ref('dcim_site', row.site_id) : null;
  const named = genericAs('scope', model)(row, cx);
  if (named || model !== 'organization.site' || row._site_id === undefined || row.scope_type_id === null) return named;
  if (row._location_id !== null && row._location_id !== undefined && row._site_id !== null) {
    cx.note("scoped to a location: put on the location's site (Cairn keeps a site here, no location)");
    return cx.ref('dcim_site', row._site_id);
  }
  cx.note('scoped to a region or site group: no site (Cairn keeps a site here, nothing wider)');
  return null;
};
/** 4.2's cached scope columns of a prefix or cluster: read by scopeAs, or told by its site (region, site group). */
const SCOPE_CACHE_READS = ['_site_id', '_location_id', '_region_id', '_sitegroup_id'];

/** What a Cairn circuit termination may end at (its termination_type). */
const CIRCUIT_TERMINATION_POINTS = new Set(['dcim.site', 'dcim.location', 'circuits.providernetwork']);

/** NetBox's circuit termination point: 4.2's termination_type/termination_id, or 4.1's site_id/provider_network_id. */
function circuitTerminationPoint(row: NetBoxRow, cx: MapContext): { type: string; id: string | null } | null {
  if (row.termination_type_id !== undefined) {
    if (row.termination_type_id === null) return null;
    const type = cx.netboxTypeName(row.termination_type_id);
    return { type, id: cx.object(row.termination_type_id, row.termination_id)?.id ?? null };
  }
  if (row.site_id !== null && row.site_id !== undefined) return { type: 'dcim.site', id: cx.ref('dcim_site', row.site_id) };
  if (row.provider_network_id !== null && row.provider_network_id !== undefined) return { type: 'circuits.providernetwork', id: cx.ref('circuits_providernetwork', row.provider_network_id) };
  return null;
}

/** The object a contact assignment names (its content type column is object_type_id in 4.x, content_type_id in 3.7). */
const assignedObject = (row: NetBoxRow, cx: MapContext) => cx.object(row.object_type_id ?? row.content_type_id, row.object_id);

/** An int4range[] as text ('{"[1,4095)"}'): the lowest and highest VLAN id of the ranges. */
function vidBound(row: NetBoxRow, which: 'min' | 'max'): number | null {
  if (row.min_vid !== undefined) return (which === 'min' ? row.min_vid : row.max_vid) as number;
  const text = String(row.vid_ranges ?? '');
  const bounds = [...text.matchAll(/([[(])(\d+),(\d+)([\])])/g)].map((m) => [Number(m[2]) + (m[1] === '(' ? 1 : 0), Number(m[3]) - (m[4] === ')' ? 1 : 0)] as const);
  if (bounds.length === 0) return null;
  return which === 'min' ? Math.min(...bounds.map((b) => b[0])) : Math.max(...bounds.map((b) => b[1]));
}

/** What a Cairn cable end can be: every kind registered with the cable write path (dcim/cable-ends.ts). */
export function cableEndModels(): Set<string> {
  return new Set(TERMINATION_TYPES);
}

const endsByCable = new WeakMap<NetBoxRow[], Map<number, NetBoxRow[]>>();

/** dcim_cabletermination rows by cable (computed once per list). */
export function endsOf(rows: NetBoxRow[]): Map<number, NetBoxRow[]> {
  let map = endsByCable.get(rows);
  if (!map) {
    map = new Map();
    for (const r of rows) {
      const list = map.get(Number(r.cable_id));
      if (list) list.push(r);
      else map.set(Number(r.cable_id), [r]);
    }
    endsByCable.set(rows, map);
  }
  return map;
}

const firstIds = new WeakMap<NetBoxRow[], Map<string, number>>();

/** Each name's lowest id among `rows` (computed once per list). */
function firstIdByName(rows: NetBoxRow[]): Map<string, number> {
  let map = firstIds.get(rows);
  if (!map) {
    map = new Map();
    for (const r of rows) {
      const name = String(r.name);
      const id = Number(r.id);
      if (r.name !== null && (!map.has(name) || id < map.get(name)!)) map.set(name, id);
    }
    firstIds.set(rows, map);
  }
  return map;
}

/** NetBox's custom field types that Cairn has under another name, or not at all (null). */
const CUSTOM_FIELD_TYPES: Record<string, string | null> = {
  text: 'text', longtext: 'longtext', integer: 'integer', decimal: 'decimal', boolean: 'boolean', date: 'date',
  datetime: 'text', url: 'url', json: 'json', select: 'select', multiselect: 'multiselect', object: null, multiobject: null,
};

/** A NetBox model name → Cairn model name, where they differ. */
export const RENAMED_MODELS: Record<string, string> = {
  'dcim.site': 'organization.site',
  'dcim.region': 'organization.region',
  'tenancy.tenant': 'tenancy.owner',
  'tenancy.tenantgroup': 'tenancy.ownergroup',
};

export const TABLE_MAP: readonly TableMapping[] = [
  {
    table: 'extras_customfield',
    model: 'extras.customfield',
    preload: ['extras_customfieldchoiceset', 'customfield_object_types'],
    skip: (row) => (CUSTOM_FIELD_TYPES[String(row.type)] === null ? `type ${String(row.type)} (a reference to other objects) has no Cairn equivalent` : null),
    columns: {
      type: (row) => CUSTOM_FIELD_TYPES[String(row.type)] ?? 'text',
      object_types: (row, cx) =>
        cx.rowsOf('customfield_object_types').filter((r) => r.customfield_id === row.id).map((r) => cx.modelOfContentType(r.objecttype_id ?? r.contenttype_id)).filter((m): m is string => m !== null).sort(),
      choices: (row, cx) => {
        const set = row.choice_set_id ? cx.lookup('extras_customfieldchoiceset', row.choice_set_id) : null;
        const extra = (set?.extra_choices ?? row.choices ?? []) as unknown[];
        return extra.map((c) => (Array.isArray(c) ? String(c[0]) : String(c)));
      },
    },
  },
  { table: 'tenancy_tenantgroup', model: 'tenancy.ownergroup' },
  { table: 'tenancy_tenant', model: 'tenancy.owner' },
  { table: 'extras_tag', model: 'extras.tag' },
  { table: 'dcim_region', model: 'organization.region' },
  { table: 'dcim_sitegroup', model: 'dcim.sitegroup' },
  { table: 'dcim_site', model: 'organization.site' },
  { table: 'dcim_location', model: 'dcim.location' },
  { table: 'dcim_rackrole', model: 'dcim.rackrole' },
  { table: 'dcim_manufacturer', model: 'dcim.manufacturer' },
  {
    table: 'dcim_racktype',
    model: 'dcim.racktype',
    columns: { width: (row) => (row.width === null ? null : String(row.width)), outer_unit: blankAsNull('outer_unit'), weight_unit: blankAsNull('weight_unit') },
  },
  { table: 'dcim_rack', model: 'dcim.rack', columns: { width: (row) => (row.width === null ? null : String(row.width)) } },
  // The reservation's user is the Cairn user NetBox's user became.
  { table: 'dcim_rackreservation', model: 'dcim.rackreservation', reads: ['user_id'], columns: { user: (row, cx) => cx.user(row.user_id) } },
  {
    table: 'extras_configtemplate',
    model: 'extras.exporttemplate',
    numidOffset: CONFIG_TEMPLATE_NUMIDS,
    columns: { object_type: () => 'dcim.device', as_attachment: () => false },
  },
  {
    table: 'extras_exporttemplate',
    model: 'extras.exporttemplate',
    preload: ['exporttemplate_object_types'],
    columns: {
      object_type: (row, cx) => {
        const types = cx.rowsOf('exporttemplate_object_types').filter((r) => r.exporttemplate_id === row.id).map((r) => cx.modelOfContentType(r.objecttype_id ?? r.contenttype_id));
        return types.find((t) => t !== null) ?? (row.content_type_id !== undefined ? cx.modelOfContentType(row.content_type_id) : null);
      },
    },
    skip: (row, cx) => {
      const has = cx.rowsOf('exporttemplate_object_types').some((r) => r.exporttemplate_id === row.id && cx.modelOfContentType(r.objecttype_id ?? r.contenttype_id));
      return has || (row.content_type_id !== undefined && cx.modelOfContentType(row.content_type_id)) ? null : 'exports a model that has no home in Cairn';
    },
  },
  { table: 'dcim_platform', model: 'dcim.platform' },
  { table: 'dcim_devicerole', model: 'dcim.devicerole' },
  { table: 'dcim_devicetype', model: 'dcim.devicetype' },
  { table: 'dcim_moduletype', model: 'dcim.moduletype', columns: { airflow: blankAsNull('airflow') } },
  // Component templates belong to a device type or a module type (module_type_id).
  { table: 'dcim_interfacetemplate', model: 'dcim.interfacetemplate', columns: { poe_mode: blankAsNull('poe_mode'), poe_type: blankAsNull('poe_type') } },
  { table: 'dcim_rearporttemplate', model: 'dcim.rearporttemplate' },
  { table: 'dcim_frontporttemplate', model: 'dcim.frontporttemplate' },
  { table: 'dcim_consoleporttemplate', model: 'dcim.consoleporttemplate', columns: { type: blankAsNull('type') } },
  { table: 'dcim_consoleserverporttemplate', model: 'dcim.consoleserverporttemplate', columns: { type: blankAsNull('type') } },
  { table: 'dcim_powerporttemplate', model: 'dcim.powerporttemplate', columns: { type: blankAsNull('type') } },
  { table: 'dcim_poweroutlettemplate', model: 'dcim.poweroutlettemplate', columns: { type: blankAsNull('type'), feed_leg: blankAsNull('feed_leg') } },
  // Cairn's module bay templates belong to device types only (a module type's own bays are not modelled).
  { table: 'dcim_modulebaytemplate', model: 'dcim.modulebaytemplate', skip: (row) => (row.device_type_id === null ? 'a module bay template of a module type (Cairn keeps module bay templates on device types)' : null) },
  { table: 'dcim_devicebaytemplate', model: 'dcim.devicebaytemplate' },
  { table: 'dcim_inventoryitemrole', model: 'dcim.inventoryitemrole' },
  { table: 'dcim_inventoryitemtemplate', model: 'dcim.inventoryitemtemplate' },
  { table: 'ipam_rir', model: 'ipam.rir' },
  { table: 'ipam_role', model: 'ipam.role' },
  { table: 'ipam_aggregate', model: 'ipam.aggregate' },
  { table: 'ipam_routetarget', model: 'ipam.routetarget' },
  {
    table: 'ipam_vrf',
    model: 'ipam.vrf',
    m2m: {
      import_targets: { table: 'ipam_vrf_import_targets', from: 'vrf_id', to: 'routetarget_id' },
      export_targets: { table: 'ipam_vrf_export_targets', from: 'vrf_id', to: 'routetarget_id' },
    },
  },
  {
    table: 'ipam_vlangroup',
    model: 'ipam.vlangroup',
    reads: ['vid_ranges', 'min_vid', 'max_vid'],
    columns: { site: scopeAs('organization.site'), region: scopeAs('organization.region'), min_vid: (row) => vidBound(row, 'min'), max_vid: (row) => vidBound(row, 'max') },
  },
  { table: 'ipam_vlan', model: 'ipam.vlan' },
  { table: 'wireless_wirelesslangroup', model: 'wireless.wirelesslangroup' },
  { table: 'wireless_wirelesslan', model: 'wireless.wirelesslan', columns: { auth_type: blankAsNull('auth_type'), auth_cipher: blankAsNull('auth_cipher') } },
  { table: 'virtualization_clustertype', model: 'virtualization.clustertype' },
  { table: 'virtualization_clustergroup', model: 'virtualization.clustergroup' },
  { table: 'virtualization_cluster', model: 'virtualization.cluster', reads: SCOPE_CACHE_READS, columns: { site: scopeAs('organization.site') } },
  // Before the devices (their virtual_chassis); the master device is set in the second pass.
  { table: 'dcim_virtualchassis', model: 'dcim.virtualchassis' },
  {
    table: 'dcim_device',
    model: 'dcim.device',
    preload: ['dcim_devicetype', 'dcim_manufacturer', 'dcim_site', 'dcim_device'],
    columns: {
      name: (row, cx) => {
        if (row.name === null || row.name === '') {
          // NetBox allows unnamed devices and shows them as "<manufacturer> <model> (<id>)"; Cairn names every device.
          const type = cx.lookup('dcim_devicetype', row.device_type_id);
          cx.note('unnamed in NetBox: named "<manufacturer> <model> (<id>)" as NetBox shows it');
          return `${String(cx.lookup('dcim_manufacturer', type?.manufacturer_id)?.name ?? '')} ${String(type?.model ?? 'device')} (${String(row.id)})`.trim();
        }
        // NetBox names a device uniquely per site, Cairn per tenant: the lowest id keeps the name, the others get
        // their site's slug (the same on every run).
        const first = firstIdByName(cx.rowsOf('dcim_device')).get(String(row.name));
        if (first !== undefined && first !== Number(row.id)) {
          cx.note('name repeated in another site: the site slug added in brackets');
          return `${String(row.name)} (${String(cx.lookup('dcim_site', row.site_id)?.slug ?? row.site_id)})`;
        }
        return row.name;
      },
      position: (row) => (row.position === null ? null : Number(row.position)),
      face: blankAsNull('face'),
    },
  },
  // Bays before modules (a module sits in one); a bay on a module gets its module in the second pass. Modules are
  // written as rows, not through the install hook: their components come from NetBox's own rows (module_id).
  { table: 'dcim_modulebay', model: 'dcim.modulebay' },
  { table: 'dcim_module', model: 'dcim.module', reads: ['local_context_data'] },
  { table: 'virtualization_virtualmachine', model: 'virtualization.virtualmachine' },
  { table: 'virtualization_virtualdisk', model: 'virtualization.virtualdisk' },
  {
    table: 'dcim_interface',
    model: 'dcim.interface',
    m2m: {
      tagged_vlans: { table: 'dcim_interface_tagged_vlans', from: 'interface_id', to: 'vlan_id' },
      wireless_lans: { table: 'dcim_interface_wireless_lans', from: 'interface_id', to: 'wirelesslan_id' },
    },
    // NetBox 4.2 keeps MAC addresses in a table of their own; the interface's primary one is Cairn's mac_address.
    select: (_v, cols) => (cols.has('primary_mac_address_id') ? '(SELECT m.mac_address::text FROM dcim_macaddress m WHERE m.id = t.primary_mac_address_id) AS mac_address' : ''),
    columns: { mode: blankAsNull('mode'), duplex: blankAsNull('duplex'), poe_mode: blankAsNull('poe_mode'), poe_type: blankAsNull('poe_type'), mac_address: (row) => (row.mac_address == null ? null : String(row.mac_address).toUpperCase()) },
  },
  { table: 'dcim_rearport', model: 'dcim.rearport' },
  { table: 'dcim_frontport', model: 'dcim.frontport' },
  { table: 'dcim_consoleport', model: 'dcim.consoleport', columns: { type: blankAsNull('type') } },
  { table: 'dcim_consoleserverport', model: 'dcim.consoleserverport', columns: { type: blankAsNull('type') } },
  { table: 'dcim_powerport', model: 'dcim.powerport', columns: { type: blankAsNull('type') } },
  { table: 'dcim_poweroutlet', model: 'dcim.poweroutlet', columns: { type: blankAsNull('type'), feed_leg: blankAsNull('feed_leg') } },
  { table: 'dcim_devicebay', model: 'dcim.devicebay' },
  { table: 'dcim_inventoryitem', model: 'dcim.inventoryitem' },
  {
    table: 'virtualization_vminterface',
    model: 'virtualization.vminterface',
    m2m: { tagged_vlans: { table: 'virtualization_vminterface_tagged_vlans', from: 'vminterface_id', to: 'vlan_id' } },
    select: (_v, cols) => (cols.has('primary_mac_address_id') ? '(SELECT m.mac_address::text FROM dcim_macaddress m WHERE m.id = t.primary_mac_address_id) AS mac_address' : ''),
    columns: { mode: blankAsNull('mode'), mac_address: (row) => (row.mac_address == null ? null : String(row.mac_address).toUpperCase()) },
  },
  {
    table: 'wireless_wirelesslink',
    model: 'wireless.wirelesslink',
    columns: { auth_type: blankAsNull('auth_type'), auth_cipher: blankAsNull('auth_cipher'), distance_unit: blankAsNull('distance_unit') },
  },
  { table: 'ipam_fhrpgroup', model: 'ipam.fhrpgroup', columns: { auth_type: blankAsNull('auth_type') } },
  {
    table: 'ipam_fhrpgroupassignment',
    model: 'ipam.fhrpgroupassignment',
    columns: { interface: genericAs('interface', 'dcim.interface'), vm_interface: genericAs('interface', 'virtualization.vminterface') },
  },
  { table: 'ipam_prefix', model: 'ipam.prefix', reads: SCOPE_CACHE_READS, columns: { site: scopeAs('organization.site') } },
  { table: 'ipam_iprange', model: 'ipam.iprange' },
  {
    table: 'ipam_ipaddress',
    model: 'ipam.ipaddress',
    columns: {
      role: blankAsNull('role'),
      assigned_interface: genericAs('assigned_object', 'dcim.interface'),
      assigned_vm_interface: genericAs('assigned_object', 'virtualization.vminterface'),
      fhrp_group: genericAs('assigned_object', 'ipam.fhrpgroup'),
    },
  },
  { table: 'ipam_asnrange', model: 'ipam.asnrange' },
  { table: 'ipam_asn', model: 'ipam.asn', m2m: { sites: { table: 'dcim_site_asns', from: 'asn_id', to: 'site_id' } } },
  { table: 'ipam_servicetemplate', model: 'ipam.servicetemplate' },
  { table: 'ipam_vlantranslationpolicy', model: 'ipam.vlantranslationpolicy' },
  { table: 'ipam_vlantranslationrule', model: 'ipam.vlantranslationrule' },
  {
    table: ['vpn_l2vpn', 'ipam_l2vpn'],
    model: 'vpn.l2vpn',
    m2m: {
      import_targets: { table: ['vpn_l2vpn_import_targets', 'ipam_l2vpn_import_targets'], from: 'l2vpn_id', to: 'routetarget_id' },
      export_targets: { table: ['vpn_l2vpn_export_targets', 'ipam_l2vpn_export_targets'], from: 'l2vpn_id', to: 'routetarget_id' },
    },
  },
  {
    table: ['vpn_l2vpntermination', 'ipam_l2vpntermination'],
    model: 'vpn.l2vpntermination',
    skip: (row, cx) => (cx.object(row.assigned_object_type_id, row.assigned_object_id) ? null : 'terminates on an object that was not imported'),
    columns: {
      vlan: genericAs('assigned_object', 'ipam.vlan'),
      interface: genericAs('assigned_object', 'dcim.interface'),
      vm_interface: genericAs('assigned_object', 'virtualization.vminterface'),
    },
  },
  // Circuits after the ASNs (a provider's asns) and the sites, locations and provider networks they end at.
  { table: 'circuits_provider', model: 'circuits.provider', m2m: { asns: { table: 'circuits_provider_asns', from: 'provider_id', to: 'asn_id' } } },
  { table: 'circuits_provideraccount', model: 'circuits.provideraccount' },
  { table: 'circuits_providernetwork', model: 'circuits.providernetwork' },
  { table: 'circuits_circuittype', model: 'circuits.circuittype' },
  // A circuit's A and Z terminations are its termination rows (term_side), which Cairn reads from them.
  { table: 'circuits_circuit', model: 'circuits.circuit', reads: ['termination_a_id', 'termination_z_id'] },
  {
    table: 'circuits_circuittermination',
    model: 'circuits.circuittermination',
    reads: ['site_id', 'provider_network_id', 'location_id', 'termination_type_id', '_provider_network_id', '_site_id', '_location_id', '_region_id', '_sitegroup_id'],
    skip: (row, cx) => {
      const point = circuitTerminationPoint(row, cx);
      if (!point) return 'terminates nowhere (no site, location or provider network)';
      // NetBox 4.2 also ends circuits at regions and site groups; Cairn at sites, locations and provider networks.
      if (!CIRCUIT_TERMINATION_POINTS.has(point.type)) return `terminates at a ${point.type}, which Cairn circuit terminations do not take`;
      return point.id ? null : `terminates at a ${point.type} that was not imported`;
    },
    columns: {
      termination_type: (row, cx) => circuitTerminationPoint(row, cx)?.type ?? null,
      termination_id: (row, cx) => circuitTerminationPoint(row, cx)?.id ?? null,
    },
  },
  { table: 'dcim_powerpanel', model: 'dcim.powerpanel' },
  // Cairn computes a feed's available power from its voltage, amperage and utilisation.
  { table: 'dcim_powerfeed', model: 'dcim.powerfeed', reads: ['available_power'] },
  {
    table: 'dcim_cable',
    model: 'dcim.cable',
    special: 'cable_terminations',
    preload: ['dcim_cabletermination'],
    // A cable with an end on a kind Cairn's cables do not take (none in NetBox 4.1/4.2 today) is left out, reported.
    skip: (row, cx) => {
      const kinds = cableEndModels();
      const other = endsOf(cx.rowsOf('dcim_cabletermination')).get(Number(row.id))?.map((e) => cx.modelOfContentType(e.termination_type_id) ?? cx.netboxTypeName(e.termination_type_id)).find((m) => !kinds.has(m));
      return other ? `an end on ${other}, which Cairn cables do not take yet` : null;
    },
    columns: { type: blankAsNull('type'), length_unit: blankAsNull('length_unit') },
  },
  {
    table: 'extras_configcontext',
    model: 'extras.configcontext',
    m2m: {
      regions: { table: 'extras_configcontext_regions', from: 'configcontext_id', to: 'region_id' },
      sites: { table: 'extras_configcontext_sites', from: 'configcontext_id', to: 'site_id' },
      roles: { table: 'extras_configcontext_roles', from: 'configcontext_id', to: 'devicerole_id' },
      platforms: { table: 'extras_configcontext_platforms', from: 'configcontext_id', to: 'platform_id' },
    },
  },
  {
    table: 'extras_journalentry',
    model: 'core.journalentry',
    skip: (row, cx) => (cx.object(row.assigned_object_type_id, row.assigned_object_id) ? null : 'journal of an object that has no home in Cairn'),
    columns: {
      object_type: (row, cx) => cx.object(row.assigned_object_type_id, row.assigned_object_id)?.model ?? null,
      object_id: (row, cx) => cx.object(row.assigned_object_type_id, row.assigned_object_id)?.id ?? null,
      author: (row, cx) => cx.user(row.created_by_id),
    },
  },
  // Contacts last: an assignment names any object that can have contacts, so every such table is written before.
  { table: 'tenancy_contactgroup', model: 'tenancy.contactgroup' },
  { table: 'tenancy_contactrole', model: 'tenancy.contactrole' },
  { table: 'tenancy_contact', model: 'tenancy.contact' },
  {
    table: 'tenancy_contactassignment',
    model: 'tenancy.contactassignment',
    reads: ['content_type_id', 'object_type_id'],
    skip: (row, cx) => (assignedObject(row, cx) ? null : `assigned to a ${cx.netboxTypeName(row.object_type_id ?? row.content_type_id)} that was not imported`),
    columns: {
      object_type: (row, cx) => assignedObject(row, cx)?.model ?? null,
      object_id: (row, cx) => assignedObject(row, cx)?.id ?? null,
      priority: blankAsNull('priority'),
    },
  },
  {
    table: 'extras_webhook',
    model: 'extras.webhook',
    preload: ['extras_eventrule'],
    columns: {
      // Imported webhooks never fire by themselves: an operator turns each on after checking where it posts.
      enabled: () => false,
      additional_headers: (row) => headersObject(String(row.additional_headers ?? '')),
      object_types: (row, cx) => [...new Set(webhookRules(row, cx).flatMap((r) => (r.object_types as string[] | undefined) ?? []))].sort(),
      events: (row, cx) => [...new Set(webhookRules(row, cx).flatMap((r) => eventNames(r)))].sort(),
    },
  },
];

/** NetBox's "Name: value" header lines as an object. */
function headersObject(text: string): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0) out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return Object.keys(out).length ? out : null;
}

/** NetBox 4.x event rules that post to a webhook (with the object types they watch, resolved when preloaded). */
function webhookRules(row: NetBoxRow, cx: MapContext): NetBoxRow[] {
  return cx.rowsOf('extras_eventrule').filter((r) => String(r.action_type) === 'webhook' && String(r.action_object_id) === String(row.id));
}

function eventNames(rule: NetBoxRow): string[] {
  if (Array.isArray(rule.event_types)) return (rule.event_types as string[]).map((e) => e.replace(/^object_/, '')).filter((e) => ['created', 'updated', 'deleted'].includes(e));
  return (['create', 'update', 'delete'] as const).filter((k) => rule[`type_${k}`] === true).map((k) => `${k}d`);
}
