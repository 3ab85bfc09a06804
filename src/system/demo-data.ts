// `cairn demo-data`: a deterministic, realistic leaf-spine network for demos, UI tests and benchmarks.
//
// What it builds (per site of 40 devices): 4 spines, 2 border routers, 2 firewalls and 32 leaves, every leaf
// and border cabled to every spine, one loopback address per device as its primary IPv4 (on the device's own
// loopback interface), eBGP sessions over loopbacks on both ends of every leaf-spine and border-spine link,
// four site VLANs with their prefixes, a server LAG per leaf (two access ports bundled, trunking the site's
// VLANs), and a handful of tenant-wide catalogs (regions, manufacturers,
// platforms, roles, device types with interface templates, VRFs, route targets, custom fields, config contexts).
//
// Determinism: every name, address, flag and serial comes from a plan (`planDemoNetwork`) drawn from a seeded
// PRNG with one stream per entity (seed, kind, index), so the first K devices of a 500-device run are the same
// as those of a 50-device run with the same seed. Row ids are UUID v7 (time-ordered, not reproducible): tests
// compare names and addresses, never ids.
//
// Writes: one transaction, through the core's bulk load (src/core/crud/bulk-load.ts): `INSERT … SELECT FROM
// unnest(…)` in chunks, numids reserved per table in one block, every object in the change log (by the system
// user) and the search index, every row written once (devices carry their primary IP and rack place from the
// start, interfaces their LAG and VLANs). The validate rules of the models it writes are not run row by row (each
// says so: PLANNED_BY_LOADERS, core/crud/row-rules.ts; a rule that does not say runs for every row): the load
// produces rows that already satisfy what they enforce (statuses available to the model, primary IP on one of the
// device's own interfaces,
// interfaces materialised from the device type's templates, one device per rack unit, cables only between
// physical ports, one BGP instance per device in the global table). The prefixes' hierarchy and utilisation,
// which those hooks keep, are refreshed once at the end of their steps.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import { createTenant } from '../core/accounts.ts';
import { uuidv7 } from '../core/ids.ts';
import { refreshTenantHierarchy } from '../ipam/hierarchy.ts';
import { refreshTenantUtilization } from '../ipam/utilization.ts';
import { writeIpamExtras } from './demo-ipam-extras.ts';
import { BulkLoad, type LoadColumn } from '../core/crud/bulk-load.ts';
import { systemContext } from '../core/context.ts';
import { allModels, type ModelDef } from '../core/registry.ts';
import { MAX_DEMO_DEVICES } from './demo-data-limits.ts';
import { inTenant } from '../core/access.ts';
import { writeDemoRacks } from './demo-racks.ts';
import { PANEL_PORTS, writePatchPanels } from './demo-patch-panels.ts';
import { writeDemoModules } from './demo-modules.ts';
import { writeOrganisation } from './demo-contacts.ts';
import { writeVirtWireless } from './demo-virt-wireless.ts';
import { writeConsolePower } from './demo-power-console.ts';
import { writeDemoCircuits } from './demo-circuits.ts';

export class DemoDataError extends Error {}

export { MAX_DEMO_DEVICES };
/** Devices per site: 4 spines, 2 borders, 2 firewalls, 32 leaves (a spine has 36 ports: 32 leaves + 2 borders + 2 spare). */
export const SITE_SIZE = 40;

/**
 * Roles of the devices demo data adds around the planned network (demo-patch-panels.ts, demo-modules.ts,
 * demo-power-console.ts, demo-circuits.ts): they are not among the planned devices and take no configuration.
 */
export const DEMO_SUPPORT_ROLES = ['patch-panel', 'core-chassis', 'pdu', 'console-server', 'provider-edge'] as const;
const SPINES = 4;
const BORDERS = 2;
const FIREWALLS = 2;
const FIRST_LEAF = SPINES + BORDERS + FIREWALLS;
/** Rows per INSERT statement: big enough to amortise the round trip, small enough for the bind buffer. */
const CHUNK = 20_000;

export type DemoRole = 'spine' | 'leaf' | 'border' | 'firewall';

export interface DemoDataOptions {
  devices: number;
  seed?: number;
  tenantSlug?: string;
  /** Called with one line per table written and a summary (the CLI prints them). */
  onProgress?: (line: string) => void;
}

export interface DemoDataResult {
  tenantId: string;
  rows: Record<string, number>;
  totalRows: number;
  ms: number;
}

// ---------------------------------------------------------------- seeded randomness

function mix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A PRNG stream for one entity: mulberry32 seeded from (seed, kind, index). */
export function rngFor(seed: number, kind: number, index: number): () => number {
  let state = mix32(mix32(mix32(seed >>> 0) ^ Math.imul(kind + 1, 0x9e3779b9)) ^ Math.imul(index + 1, 0x27d4eb2f));
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STREAM_SITE = 1;
const STREAM_DEVICE = 2;

function pick<T>(rng: () => number, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

// ---------------------------------------------------------------- catalogs

interface RegionSpec {
  name: string;
  slug: string;
  children: Array<{ name: string; slug: string; code: string; city: string }>;
}

const REGIONS: readonly RegionSpec[] = [
  {
    name: 'Europe',
    slug: 'europe',
    children: [
      { name: 'Netherlands', slug: 'nl', code: 'ams', city: 'Amsterdam' },
      { name: 'Germany', slug: 'de', code: 'fra', city: 'Frankfurt' },
      { name: 'United Kingdom', slug: 'uk', code: 'lon', city: 'London' },
      { name: 'France', slug: 'fr', code: 'par', city: 'Paris' },
    ],
  },
  {
    name: 'North America',
    slug: 'north-america',
    children: [
      { name: 'US East', slug: 'us-east', code: 'iad', city: 'Ashburn' },
      { name: 'US West', slug: 'us-west', code: 'sjc', city: 'San Jose' },
      { name: 'US Central', slug: 'us-central', code: 'dfw', city: 'Dallas' },
      { name: 'Canada', slug: 'ca', code: 'yyz', city: 'Toronto' },
    ],
  },
  {
    name: 'Asia Pacific',
    slug: 'asia-pacific',
    children: [
      { name: 'Singapore', slug: 'sg', code: 'sin', city: 'Singapore' },
      { name: 'Japan', slug: 'jp', code: 'nrt', city: 'Tokyo' },
      { name: 'Australia', slug: 'au', code: 'syd', city: 'Sydney' },
      { name: 'Hong Kong', slug: 'hk', code: 'hkg', city: 'Hong Kong' },
    ],
  },
];
const CITIES = REGIONS.flatMap((r) => r.children);

const MANUFACTURERS = [
  { key: 'arista', name: 'Arista', serial: 'JPE' },
  { key: 'cisco', name: 'Cisco', serial: 'FDO' },
  { key: 'juniper', name: 'Juniper', serial: 'WS3' },
  { key: 'nvidia', name: 'NVIDIA', serial: 'MT2' },
  { key: 'paloalto', name: 'Palo Alto Networks', serial: '0130' },
] as const;
type ManufacturerKey = (typeof MANUFACTURERS)[number]['key'];

const PLATFORMS = [
  { key: 'eos', name: 'EOS', slug: 'eos', manufacturer: 'arista' },
  { key: 'ios-xe', name: 'IOS-XE', slug: 'ios-xe', manufacturer: 'cisco' },
  { key: 'nx-os', name: 'NX-OS', slug: 'nx-os', manufacturer: 'cisco' },
  { key: 'junos', name: 'Junos', slug: 'junos', manufacturer: 'juniper' },
  { key: 'cumulus', name: 'Cumulus Linux (FRR)', slug: 'cumulus', manufacturer: 'nvidia' },
  { key: 'pan-os', name: 'PAN-OS', slug: 'pan-os', manufacturer: 'paloalto' },
] as const;
type PlatformKey = (typeof PLATFORMS)[number]['key'];

const ROLES: ReadonlyArray<{ key: DemoRole; name: string; color: string; description: string }> = [
  { key: 'spine', name: 'Spine', color: '3f51b5', description: 'Fabric spine: every leaf and border connects to every spine.' },
  { key: 'leaf', name: 'Leaf', color: '4caf50', description: 'Top-of-rack switch.' },
  { key: 'border', name: 'Border', color: 'ff9800', description: 'Border router: the fabric edge towards the WAN and the internet.' },
  { key: 'firewall', name: 'Firewall', color: 'f44336', description: 'Perimeter firewall.' },
];

interface TemplateSpec {
  name: string;
  type: string;
  mgmtOnly?: boolean;
}

interface DeviceTypeSpec {
  key: string;
  manufacturer: ManufacturerKey;
  model: string;
  slug: string;
  partNumber: string;
  uHeight: number;
  interfaces: TemplateSpec[];
  /** Leaves and borders: the ports towards spine 1..4. Spines: the ports towards leaf 1..32, then border 1..2. */
  fabricPorts: string[];
  loopback: string;
  /** Leaves: a server-facing LAG, bundling the first two access ports and trunking the site's VLANs. */
  lag?: { name: string; members: string[] };
}

function ports(names: string[], type: string): TemplateSpec[] {
  return names.map((name) => ({ name, type }));
}
function seq(from: number, to: number, f: (n: number) => string): string[] {
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(f(n));
  return out;
}

function deviceType(key: string, manufacturer: ManufacturerKey, model: string, partNumber: string, uHeight: number, parts: {
  access?: TemplateSpec[];
  fabric: string[];
  fabricType: string;
  mgmt: string;
  loopback: string;
  lag?: string;
}): DeviceTypeSpec {
  const lag = parts.lag && parts.access ? { name: parts.lag, members: parts.access.slice(0, 2).map((p) => p.name) } : undefined;
  return {
    key,
    manufacturer,
    model,
    slug: key,
    partNumber,
    uHeight,
    interfaces: [
      ...(parts.access ?? []),
      ...ports(parts.fabric, parts.fabricType),
      { name: parts.mgmt, type: '1000base-t', mgmtOnly: true },
      { name: parts.loopback, type: 'loopback' },
      ...(lag ? [{ name: lag.name, type: 'lag' }] : []),
    ],
    fabricPorts: parts.fabric,
    loopback: parts.loopback,
    lag,
  };
}

const Q28 = '100gbase-x-qsfp28';
const S28 = '25gbase-x-sfp28';
const DEVICE_TYPES: readonly DeviceTypeSpec[] = [
  deviceType('arista-dcs-7050sx3-48yc8', 'arista', 'DCS-7050SX3-48YC8', 'DCS-7050SX3-48YC8-R', 1, {
    access: ports(seq(1, 24, (n) => `Ethernet${n}`), S28), fabric: seq(49, 52, (n) => `Ethernet${n}/1`), fabricType: Q28, mgmt: 'Management1', loopback: 'Loopback0', lag: 'Port-Channel1',
  }),
  deviceType('arista-dcs-7280cr3-32p4', 'arista', 'DCS-7280CR3-32P4', 'DCS-7280CR3-32P4-R', 1, {
    fabric: seq(1, 36, (n) => `Ethernet${n}/1`), fabricType: Q28, mgmt: 'Management1', loopback: 'Loopback0',
  }),
  deviceType('cisco-n9k-c93180yc-fx', 'cisco', 'Nexus 93180YC-FX', 'N9K-C93180YC-FX', 1, {
    access: ports(seq(1, 24, (n) => `Ethernet1/${n}`), S28), fabric: seq(49, 52, (n) => `Ethernet1/${n}`), fabricType: Q28, mgmt: 'mgmt0', loopback: 'loopback0', lag: 'port-channel1',
  }),
  deviceType('cisco-n9k-c9336c-fx2', 'cisco', 'Nexus 9336C-FX2', 'N9K-C9336C-FX2', 1, {
    fabric: seq(1, 36, (n) => `Ethernet1/${n}`), fabricType: Q28, mgmt: 'mgmt0', loopback: 'loopback0',
  }),
  deviceType('cisco-c8500-12x4qc', 'cisco', 'Catalyst 8500-12X4QC', 'C8500-12X4QC', 1, {
    access: ports(seq(0, 7, (n) => `TenGigabitEthernet0/0/${n}`), '10gbase-x-sfpp'), fabric: seq(0, 3, (n) => `HundredGigE0/1/${n}`), fabricType: Q28, mgmt: 'GigabitEthernet0', loopback: 'Loopback0',
  }),
  deviceType('juniper-qfx5120-48y', 'juniper', 'QFX5120-48Y', 'QFX5120-48Y-AFO', 1, {
    access: ports(seq(0, 23, (n) => `et-0/0/${n}`), S28), fabric: seq(48, 51, (n) => `et-0/0/${n}`), fabricType: Q28, mgmt: 'em0', loopback: 'lo0', lag: 'ae0',
  }),
  deviceType('juniper-qfx5210-64c', 'juniper', 'QFX5210-64C', 'QFX5210-64C-AFO', 2, {
    fabric: seq(0, 35, (n) => `et-0/0/${n}`), fabricType: Q28, mgmt: 'em0', loopback: 'lo0',
  }),
  deviceType('juniper-mx204', 'juniper', 'MX204', 'MX204-HWBASE-AC-FS', 1, {
    access: ports(seq(0, 7, (n) => `xe-0/1/${n}`), '10gbase-x-sfpp'), fabric: seq(0, 3, (n) => `et-0/0/${n}`), fabricType: Q28, mgmt: 'fxp0', loopback: 'lo0',
  }),
  deviceType('nvidia-sn2410', 'nvidia', 'SN2410', 'MSN2410-CB2F', 1, {
    access: ports(seq(1, 24, (n) => `swp${n}`), S28), fabric: seq(49, 52, (n) => `swp${n}`), fabricType: Q28, mgmt: 'eth0', loopback: 'lo', lag: 'bond0',
  }),
  deviceType('nvidia-sn4600c', 'nvidia', 'SN4600C', 'MSN4600-CS2FC', 2, {
    fabric: seq(1, 36, (n) => `swp${n}`), fabricType: Q28, mgmt: 'eth0', loopback: 'lo',
  }),
  deviceType('paloalto-pa-5220', 'paloalto', 'PA-5220', 'PAN-PA-5220-AC', 3, {
    access: ports(seq(1, 16, (n) => `ethernet1/${n}`), '10gbase-x-sfpp'), fabric: seq(17, 20, (n) => `ethernet1/${n}`), fabricType: '40gbase-x-qsfpp', mgmt: 'mgmt', loopback: 'loopback.1',
  }),
];
const TYPE_BY_KEY = new Map(DEVICE_TYPES.map((t) => [t.key, t]));

/** A site's fabric flavour: which leaf and spine models and which OS. */
const FABRICS = [
  { platform: 'eos', leaf: 'arista-dcs-7050sx3-48yc8', spine: 'arista-dcs-7280cr3-32p4', evpn: true, weight: 4 },
  { platform: 'nx-os', leaf: 'cisco-n9k-c93180yc-fx', spine: 'cisco-n9k-c9336c-fx2', evpn: true, weight: 3 },
  { platform: 'junos', leaf: 'juniper-qfx5120-48y', spine: 'juniper-qfx5210-64c', evpn: true, weight: 2 },
  { platform: 'cumulus', leaf: 'nvidia-sn2410', spine: 'nvidia-sn4600c', evpn: false, weight: 1 },
] as const satisfies ReadonlyArray<{ platform: PlatformKey; leaf: string; spine: string; evpn: boolean; weight: number }>;
const BORDERS_BY_FLAVOUR = [
  { platform: 'junos', type: 'juniper-mx204' },
  { platform: 'ios-xe', type: 'cisco-c8500-12x4qc' },
] as const;

const VLANS = [
  { vid: 10, name: 'servers', vrf: 'PROD' },
  { vid: 20, name: 'storage', vrf: 'STORAGE' },
  { vid: 30, name: 'vmotion', vrf: 'PROD' },
  { vid: 99, name: 'oob-mgmt', vrf: 'MGMT' },
] as const;

const VRFS = [
  { name: 'MGMT', rd: '65000:1', l3vni: null, rt: null, description: 'Out-of-band management.' },
  { name: 'PROD', rd: '65000:10', l3vni: 50010, rt: '65000:10', description: 'Production workloads.' },
  { name: 'STORAGE', rd: '65000:20', l3vni: 50020, rt: '65000:20', description: 'Storage network.' },
] as const;

export const DEMO_CUSTOM_FIELDS = [
  { name: 'ntp_managed', label: 'NTP managed', type: 'boolean', choices: [] as string[], description: 'Automation pushes the NTP configuration to this device.' },
  { name: 'snmp_v3', label: 'SNMPv3', type: 'boolean', choices: [] as string[], description: 'The device is polled with SNMPv3 (not v2c).' },
  { name: 'support_tier', label: 'Support tier', type: 'select', choices: ['gold', 'silver', 'bronze'], description: 'Vendor support contract level.' },
  { name: 'install_date', label: 'Install date', type: 'date', choices: [] as string[], description: 'When the device went into the rack.' },
] as const;

const DEVICE_STATUSES = [
  { slug: 'active', weight: 0.9 },
  { slug: 'planned', weight: 0.05 },
  { slug: 'offline', weight: 0.03 },
  { slug: 'decommissioning', weight: 0.02 },
] as const;

// ---------------------------------------------------------------- the plan

export interface PlannedSite {
  index: number;
  name: string;
  slug: string;
  regionSlug: string;
  fabric: (typeof FABRICS)[number];
  border: (typeof BORDERS_BY_FLAVOUR)[number];
}

export interface PlannedDevice {
  index: number;
  name: string;
  site: number;
  role: DemoRole;
  /** Position among the devices of its role in its site (spine 0..3, leaf 0..31, …). */
  rank: number;
  typeKey: string;
  platform: PlatformKey;
  status: (typeof DEVICE_STATUSES)[number]['slug'];
  serial: string;
  assetTag: string;
  /** Loopback address with its mask, e.g. 10.0.1.5/32: the device's primary IPv4. */
  loopback: string;
  asn: number | null;
  customFields: { ntp_managed: boolean; snmp_v3: boolean; support_tier: string; install_date: string };
}

function ipv4(n: number): string {
  return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}
const LOOPBACK_BASE = (10 << 24) >>> 0; // 10.0.0.0/12: a /26 per site
const MGMT_BASE = ((172 << 24) | (16 << 16)) >>> 0; // 172.16.0.0/12: a /26 per site (VRF MGMT)
const VLAN_BASE = ((10 << 24) | (128 << 16)) >>> 0; // 10.128.0.0/9: a /24 per site VLAN
const ASN_BASE = 4_200_000_000; // private 4-byte ASNs: 100 per site

function roleAt(position: number): { role: DemoRole; rank: number } {
  if (position < SPINES) return { role: 'spine', rank: position };
  if (position < SPINES + BORDERS) return { role: 'border', rank: position - SPINES };
  if (position < FIRST_LEAF) return { role: 'firewall', rank: position - SPINES - BORDERS };
  return { role: 'leaf', rank: position - FIRST_LEAF };
}

export function planSite(seed: number, index: number): PlannedSite {
  const city = CITIES[index % CITIES.length]!;
  const number = Math.floor(index / CITIES.length) + 1;
  const rng = rngFor(seed, STREAM_SITE, index);
  const total = FABRICS.reduce((s, f) => s + f.weight, 0);
  let r = rng() * total;
  let fabric: (typeof FABRICS)[number] = FABRICS[0];
  for (const f of FABRICS) {
    r -= f.weight;
    if (r < 0) {
      fabric = f;
      break;
    }
  }
  return {
    index,
    name: `${city.city} DC${number}`,
    slug: `${city.code}${number}`,
    regionSlug: city.slug,
    fabric,
    border: pick(rng, BORDERS_BY_FLAVOUR),
  };
}

export function planDevice(seed: number, index: number, site: PlannedSite): PlannedDevice {
  const position = index % SITE_SIZE;
  const { role, rank } = roleAt(position);
  const rng = rngFor(seed, STREAM_DEVICE, index);
  const [typeKey, platform]: [string, PlatformKey] =
    role === 'spine' ? [site.fabric.spine, site.fabric.platform]
    : role === 'leaf' ? [site.fabric.leaf, site.fabric.platform]
    : role === 'border' ? [site.border.type, site.border.platform]
    : ['paloalto-pa-5220', 'pan-os'];
  const type = TYPE_BY_KEY.get(typeKey)!;
  const manufacturer = MANUFACTURERS.find((m) => m.key === type.manufacturer)!;
  let roll = rng();
  let status: PlannedDevice['status'] = 'active';
  for (const s of DEVICE_STATUSES) {
    roll -= s.weight;
    if (roll < 0) {
      status = s.slug;
      break;
    }
  }
  let serial = manufacturer.serial;
  while (serial.length < 11) serial += '0123456789ABCDEFGHJKLMNPRSTUVWXYZ'[Math.floor(rng() * 33)];
  const asn =
    role === 'spine' ? ASN_BASE + site.index * 100
    : role === 'leaf' ? ASN_BASE + site.index * 100 + 1 + rank
    : role === 'border' ? ASN_BASE + site.index * 100 + 90 + rank
    : null;
  const year = 2019 + Math.floor(rng() * 6);
  const month = 1 + Math.floor(rng() * 12);
  const day = 1 + Math.floor(rng() * 28);
  // Flags: NTP is pushed to most devices, SNMPv3 to about half (always to firewalls), so Ansible groups differ.
  const ntp = rng() < 0.75;
  const snmp = role === 'firewall' || rng() < 0.5;
  return {
    index,
    name: `${site.slug}-${role}${String(rank + 1).padStart(2, '0')}`,
    site: site.index,
    role,
    rank,
    typeKey,
    platform,
    status,
    serial,
    assetTag: `CRN-${String(index + 1).padStart(6, '0')}`,
    loopback: `${ipv4(LOOPBACK_BASE + site.index * 64 + position + 1)}/32`,
    asn,
    customFields: {
      ntp_managed: ntp,
      snmp_v3: snmp,
      support_tier: pick(rng, ['gold', 'silver', 'bronze'] as const),
      install_date: `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
    },
  };
}

/** The whole plan: pure, cheap, and what the tests compare the database against. */
export function planDemoNetwork(devices: number, seed: number): { sites: PlannedSite[]; devices: PlannedDevice[] } {
  const siteCount = Math.ceil(devices / SITE_SIZE);
  const sites = Array.from({ length: siteCount }, (_, i) => planSite(seed, i));
  const planned = Array.from({ length: devices }, (_, i) => planDevice(seed, i, sites[Math.floor(i / SITE_SIZE)]!));
  return { sites, devices: planned };
}

/** Which spine port a leaf (rank 0..31) or border (rank 0..1) lands on. */
function spinePortIndex(role: DemoRole, rank: number): number {
  return role === 'leaf' ? rank : 32 + rank;
}

// ---------------------------------------------------------------- writing

type Column = LoadColumn;

/** The model whose table is `table`: demo data names tables, the core's bulk load takes models. */
function modelOfTable(table: string): ModelDef | undefined {
  return allModels().find((m) => m.table === table);
}

/**
 * Demo data's rows go through the core's bulk load (src/core/crud/bulk-load.ts): objects with their change log,
 * links beside them. This adds what the steps share: tables by name, and a line per step with its rate.
 */
class Writer {
  private tableStart = 0;
  constructor(
    private readonly load: BulkLoad,
    private readonly progress: (line: string) => void,
  ) {}

  get rows(): Record<string, number> {
    return this.load.rows;
  }

  /** Inserts column-major data, objects through the change log and links as they are. */
  async insert(table: string, columns: Column[], data: unknown[][], consts: Record<string, RawBuilder<unknown>> = {}): Promise<void> {
    const model = modelOfTable(table);
    if (model) await this.load.insert(model, columns, data, consts);
    else await this.load.link(table, columns, data, consts);
  }

  /** Ids and numids for `count` new objects of a table's model. */
  async identities(table: string, count: number): Promise<{ ids: string[]; numids: number[] }> {
    const model = modelOfTable(table);
    if (!model) throw new Error(`no model has the table ${table}`);
    return this.load.identities(model, count);
  }

  begin(): void {
    this.tableStart = performance.now();
  }

  report(label: string, rows: number): void {
    const s = (performance.now() - this.tableStart) / 1000;
    this.progress(`  ${label}: ${rows.toLocaleString('en-US')} rows in ${s.toFixed(2)} s (${Math.round(rows / Math.max(s, 1e-6)).toLocaleString('en-US')} rows/s)`);
  }
}

async function resolveTenant(db: Kysely<DB>, slug: string): Promise<string> {
  const found = await sql<{ id: string }>`SELECT id FROM tenants WHERE slug = ${slug}`.execute(db);
  if (found.rows[0]) return found.rows[0].id;
  const name = slug === 'default' ? 'Default' : slug.replace(/(^|[-_])(\w)/g, (_m, sep: string, c: string) => `${sep ? ' ' : ''}${c.toUpperCase()}`);
  return (await createTenant(db, name, slug, 'Created by cairn demo-data.')).id;
}

export async function generateDemoData(db: Kysely<DB>, options: DemoDataOptions): Promise<DemoDataResult> {
  const { devices } = options;
  if (!Number.isInteger(devices) || devices < 1 || devices > MAX_DEMO_DEVICES) {
    throw new DemoDataError(`--devices takes a whole number from 1 to ${MAX_DEMO_DEVICES.toLocaleString('en-US')}.`);
  }
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new DemoDataError('--seed takes a whole number from 0 to 4294967295.');
  const progress = options.onProgress ?? (() => {});
  const started = performance.now();
  const tenantId = await resolveTenant(db, options.tenantSlug ?? 'default');
  const plan = planDemoNetwork(devices, seed);

  const rows = await withoutStatementTimeout(db, async (tx) => {
    // Catalog names are unique per tenant: a second load into the same tenant would collide half-way, so refuse
    // up front with a message instead of a constraint error.
    const { rows: busy } = await sql<{ busy: boolean }>`SELECT
        EXISTS (SELECT 1 FROM devices WHERE ${inTenant(tenantId)}) OR EXISTS (SELECT 1 FROM sites WHERE ${inTenant(tenantId)})
        OR EXISTS (SELECT 1 FROM regions WHERE ${inTenant(tenantId)}) OR EXISTS (SELECT 1 FROM manufacturers WHERE ${inTenant(tenantId)})
        OR EXISTS (SELECT 1 FROM device_roles WHERE ${inTenant(tenantId)}) OR EXISTS (SELECT 1 FROM platforms WHERE ${inTenant(tenantId)})
        OR EXISTS (SELECT 1 FROM vrfs WHERE ${inTenant(tenantId)}) OR EXISTS (SELECT 1 FROM config_contexts WHERE ${inTenant(tenantId)})
        OR EXISTS (SELECT 1 FROM custom_fields WHERE ${inTenant(tenantId)} AND name = ANY(${DEMO_CUSTOM_FIELDS.map((f) => f.name)}::text[])) AS busy`.execute(tx);
    if (busy[0]!.busy) {
      throw new DemoDataError(`tenant "${options.tenantSlug ?? 'default'}" already has inventory; demo data loads into an empty tenant (pass --tenant NEW-SLUG).`);
    }
    // Demo data can be regenerated, so the commit need not wait for the WAL flush (a crash loses the whole load,
    // never half of it: it is one transaction either way).
    await sql`SET LOCAL synchronous_commit = off`.execute(tx);
    const w = new Writer(new BulkLoad(tx, systemContext(tenantId, 'demo-data'), progress), progress);
    await writeAll(tx, w, tenantId, plan);
    return w.rows;
  });

  // Fresh statistics for the tables just filled, and those their triggers filled (the search index, the change
  // log): until autovacuum gets to them the planner still sees them empty and picks plans that read whole tables
  // (an interface page took 177 ms instead of 40 after a load; a search for a fragment 28 ms instead of 4).
  const filled = [...Object.keys(rows), ...TRIGGER_FILLED_TABLES];
  await withoutStatementTimeout(db, (tx) => sql`ANALYZE ${sql.join(filled.map((t) => sql.table(t)))}`.execute(tx));
  // And their GIN indexes' pending lists merged, as the next vacuum would: a search reads every pending page (the
  // search index's 29 pages after 2,000 devices doubled a fragment search, 1.0 ms instead of 0.47). Only an index's
  // owner may; where Cairn's role is not (ANALYZE only warns there), the next vacuum does it.
  await withoutStatementTimeout(db, (tx) =>
    sql`SELECT gin_clean_pending_list(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
      WHERE am.amname = 'gin' AND i.indrelid = ANY(${filled}::regclass[])`.execute(tx),
  ).catch(() => undefined);
  const totalRows = Object.values(rows).reduce((a, b) => a + b, 0);
  const ms = performance.now() - started;
  progress(`demo-data: ${devices.toLocaleString('en-US')} devices, ${totalRows.toLocaleString('en-US')} rows in ${(ms / 1000).toFixed(2)} s (${Math.round(totalRows / (ms / 1000)).toLocaleString('en-US')} rows/s overall)`);
  return { tenantId, rows, totalRows, ms };
}

/**
 * `work` in a transaction of its own with no statement timeout. A load's statements write tens of thousands of rows
 * each, and ANALYZE reads tables of millions; the server's statement timeout (CAIRN_STATEMENT_TIMEOUT_MS) is there
 * for requests, and it cancelled `cairn demo-data --devices 50000` half-way on a slow machine.
 */
function withoutStatementTimeout<T>(db: Kysely<DB>, work: (tx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (tx) => {
    await sql`SET LOCAL statement_timeout = 0`.execute(tx);
    return work(tx);
  });
}

/** Tables a load fills through triggers and the core's change log rather than by name. */
const TRIGGER_FILLED_TABLES = ['search_index', 'object_changes', 'row_counts'];

async function writeAll(tx: Kysely<DB>, w: Writer, tenantId: string, plan: { sites: PlannedSite[]; devices: PlannedDevice[] }): Promise<void> {

  // Statuses come from the tenant's catalog; a slug missing there (a tenant that renamed it) gives no status.
  const { rows: statusRows } = await sql<{ id: string; slug: string; available_to: string[]; default_for: string[] }>`
    SELECT id, slug, available_to, default_for FROM statuses WHERE ${inTenant(tenantId)}`.execute(tx);
  const deviceStatus = (slug: string): string | null =>
    statusRows.find((s) => s.slug === slug && s.available_to.includes('dcim.device'))?.id ??
    statusRows.find((s) => s.default_for.includes('dcim.device'))?.id ?? null;
  const addressStatus = statusRows.find((s) => s.default_for.includes('ipam.ipaddress'))?.id ?? null;
  const ipamStatus = (model: string, slug: string): string | null =>
    statusRows.find((s) => s.slug === slug && s.available_to.includes(model))?.id ?? statusRows.find((s) => s.default_for.includes(model))?.id ?? null;

  // --- organisation
  w.begin();
  const regionCount = REGIONS.length + CITIES.length;
  const regionIds = await w.identities('regions', regionCount);
  const regionId = new Map<string, string>();
  const parents = REGIONS.map((r, i) => {
    regionId.set(r.slug, regionIds.ids[i]!);
    return r;
  });
  await w.insert('regions', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text']], [
    regionIds.ids.slice(0, parents.length), regionIds.numids.slice(0, parents.length), parents.map((r) => r.name), parents.map((r) => r.slug),
  ]);
  const children = REGIONS.flatMap((r) => r.children.map((c) => ({ ...c, parent: r.slug })));
  children.forEach((c, i) => regionId.set(c.slug, regionIds.ids[parents.length + i]!));
  await w.insert('regions', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['parent_id', 'uuid']], [
    regionIds.ids.slice(parents.length), regionIds.numids.slice(parents.length), children.map((c) => c.name), children.map((c) => c.slug),
    children.map((c) => regionId.get(c.parent)!),
  ]);
  const siteIds = await w.identities('sites', plan.sites.length);
  // Site groups, owners and contacts (demo-contacts.ts): before the sites, whose rows carry their group and owner.
  const org = await writeOrganisation(w, siteIds.ids);
  await w.insert('sites', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['region_id', 'uuid'], ['description', 'text'], ['group_id', 'uuid'], ['owner_id', 'uuid']], [
    siteIds.ids, siteIds.numids, plan.sites.map((s) => s.name), plan.sites.map((s) => s.slug), plan.sites.map((s) => regionId.get(s.regionSlug)!),
    plan.sites.map((s) => `${s.fabric.platform} fabric, ${s.border.platform} border`), plan.sites.map((s) => org.siteGroup(s.index)), plan.sites.map((s) => org.siteOwner(s.index)),
  ], { status_id: sql`${ipamStatus('organization.site', 'active')}::uuid` });
  w.report('regions and sites', regionCount + plan.sites.length);

  // --- DCIM catalogs
  w.begin();
  const mf = await w.identities('manufacturers', MANUFACTURERS.length);
  const manufacturerId = new Map(MANUFACTURERS.map((m, i) => [m.key, mf.ids[i]!]));
  await w.insert('manufacturers', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text']], [
    mf.ids, mf.numids, MANUFACTURERS.map((m) => m.name), MANUFACTURERS.map((m) => m.key),
  ]);
  const pf = await w.identities('platforms', PLATFORMS.length);
  const platformId = new Map(PLATFORMS.map((p, i) => [p.key, pf.ids[i]!]));
  await w.insert('platforms', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['manufacturer_id', 'uuid']], [
    pf.ids, pf.numids, PLATFORMS.map((p) => p.name), PLATFORMS.map((p) => p.slug), PLATFORMS.map((p) => manufacturerId.get(p.manufacturer)!),
  ]);
  const rl = await w.identities('device_roles', ROLES.length);
  const roleId = new Map(ROLES.map((r, i) => [r.key, rl.ids[i]!]));
  await w.insert('device_roles', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['color', 'text'], ['description', 'text']], [
    rl.ids, rl.numids, ROLES.map((r) => r.name), ROLES.map((r) => r.key), ROLES.map((r) => r.color), ROLES.map((r) => r.description),
  ]);
  const dt = await w.identities('device_types', DEVICE_TYPES.length);
  const typeId = new Map(DEVICE_TYPES.map((t, i) => [t.key, dt.ids[i]!]));
  await w.insert('device_types', [['id', 'uuid'], ['numid', 'int8'], ['manufacturer_id', 'uuid'], ['model', 'text'], ['slug', 'text'], ['part_number', 'text'], ['u_height', 'int4']], [
    dt.ids, dt.numids, DEVICE_TYPES.map((t) => manufacturerId.get(t.manufacturer)!), DEVICE_TYPES.map((t) => t.model), DEVICE_TYPES.map((t) => t.slug),
    DEVICE_TYPES.map((t) => t.partNumber), DEVICE_TYPES.map((t) => t.uHeight),
  ]);
  const templates = DEVICE_TYPES.flatMap((t) => t.interfaces.map((i) => ({ ...i, type: i.type, typeKey: t.key })));
  const it = await w.identities('interface_templates', templates.length);
  await w.insert('interface_templates', [['id', 'uuid'], ['numid', 'int8'], ['device_type_id', 'uuid'], ['name', 'text'], ['type', 'text'], ['mgmt_only', 'bool']], [
    it.ids, it.numids, templates.map((t) => typeId.get(t.typeKey)!), templates.map((t) => t.name), templates.map((t) => t.type), templates.map((t) => t.mgmtOnly ?? false),
  ]);
  const cf = await w.identities('custom_fields', DEMO_CUSTOM_FIELDS.length);
  await w.insert('custom_fields', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['label', 'text'], ['type', 'text'], ['choices', 'text', 'text[]'], ['description', 'text']], [
    cf.ids, cf.numids, DEMO_CUSTOM_FIELDS.map((f) => f.name), DEMO_CUSTOM_FIELDS.map((f) => f.label), DEMO_CUSTOM_FIELDS.map((f) => f.type),
    // A text[] per row cannot ride in a text[][] (arrays must be rectangular): pass array literals and cast.
    DEMO_CUSTOM_FIELDS.map((f) => `{${f.choices.join(',')}}`), DEMO_CUSTOM_FIELDS.map((f) => f.description),
  ], { object_types: sql`ARRAY['dcim.device']::text[]` });
  w.report('catalogs (manufacturers, platforms, roles, device types, interface templates, custom fields)',
    MANUFACTURERS.length + PLATFORMS.length + ROLES.length + DEVICE_TYPES.length + templates.length + DEMO_CUSTOM_FIELDS.length);

  // --- IPAM: route targets, VRFs, VLANs, prefixes
  w.begin();
  const rtNames = VRFS.flatMap((v) => (v.rt ? [v.rt] : []));
  const rt = await w.identities('route_targets', rtNames.length);
  await w.insert('route_targets', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text']], [rt.ids, rt.numids, rtNames]);
  const vr = await w.identities('vrfs', VRFS.length);
  const vrfId = new Map(VRFS.map((v, i) => [v.name, vr.ids[i]!]));
  await w.insert('vrfs', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['rd', 'text'], ['l3vni', 'int4'], ['description', 'text']], [
    vr.ids, vr.numids, VRFS.map((v) => v.name), VRFS.map((v) => v.rd), VRFS.map((v) => v.l3vni), VRFS.map((v) => v.description),
  ]);
  const withRt = VRFS.filter((v) => v.rt);
  for (const table of ['vrf_import_targets', 'vrf_export_targets']) {
    await w.insert(table, [['vrf_id', 'uuid'], ['route_target_id', 'uuid']], [withRt.map((v) => vrfId.get(v.name)!), withRt.map((v) => rt.ids[rtNames.indexOf(v.rt!)]!)]);
  }
  const vlanCount = plan.sites.length * VLANS.length;
  const vl = await w.identities('vlans', vlanCount);
  const vlanSite: string[] = [];
  const vlanVid: number[] = [];
  const vlanName: string[] = [];
  for (const s of plan.sites) for (const v of VLANS) {
    vlanSite.push(siteIds.ids[s.index]!);
    vlanVid.push(v.vid);
    vlanName.push(v.name);
  }
  // A VLAN group per site, holding its VLANs (a VID once per group).
  const vg = await w.identities('vlan_groups', plan.sites.length);
  await w.insert('vlan_groups', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['site_id', 'uuid']], [
    vg.ids, vg.numids, plan.sites.map((s) => `${s.slug} VLANs`), plan.sites.map((s) => `${s.slug}-vlans`), plan.sites.map((s) => siteIds.ids[s.index]!),
  ]);
  const vlanGroup = plan.sites.flatMap((s) => VLANS.map(() => vg.ids[s.index]!));
  await w.insert('vlans', [['id', 'uuid'], ['numid', 'int8'], ['vid', 'int4'], ['name', 'text'], ['site_id', 'uuid'], ['group_id', 'uuid']], [vl.ids, vl.numids, vlanVid, vlanName, vlanSite, vlanGroup], {
    status_id: sql`${ipamStatus('ipam.vlan', 'active')}::uuid`,
  });
  // Prefixes: containers (10/8 holding the loopback and VLAN blocks: three deep down to a site's loopbacks),
  // then per site its loopback /26 and one prefix per VLAN.
  const pfx: { prefix: string[]; vrf: Array<string | null>; site: Array<string | null>; vlan: Array<string | null>; description: string[] } = {
    prefix: ['10.0.0.0/8', '10.0.0.0/12', '172.16.0.0/12', '10.128.0.0/9'],
    vrf: [null, null, vrfId.get('MGMT')!, null],
    site: [null, null, null, null],
    vlan: [null, null, null, null],
    description: ['Data centre space', 'Router loopbacks', 'Out-of-band management', 'Site VLANs'],
  };
  for (const s of plan.sites) {
    const sid = siteIds.ids[s.index]!;
    pfx.prefix.push(`${ipv4(LOOPBACK_BASE + s.index * 64)}/26`);
    pfx.vrf.push(null);
    pfx.site.push(sid);
    pfx.vlan.push(null);
    pfx.description.push(`${s.slug} loopbacks`);
    VLANS.forEach((v, k) => {
      pfx.prefix.push(v.vid === 99 ? `${ipv4(MGMT_BASE + s.index * 64)}/26` : `${ipv4(VLAN_BASE + (s.index * 3 + k) * 256)}/24`);
      pfx.vrf.push(vrfId.get(v.vrf)!);
      pfx.site.push(sid);
      pfx.vlan.push(vl.ids[s.index * VLANS.length + k]!);
      pfx.description.push(`${s.slug} ${v.name}`);
    });
  }
  const px = await w.identities('prefixes', pfx.prefix.length);
  // The first four are containers (their utilisation counts child prefixes), the rest active.
  const pfxStatus = pfx.prefix.map((_p, i) => ipamStatus('ipam.prefix', i < 4 ? 'container' : 'active'));
  await w.insert('prefixes', [['id', 'uuid'], ['numid', 'int8'], ['prefix', 'cidr'], ['vrf_id', 'uuid'], ['site_id', 'uuid'], ['vlan_id', 'uuid'], ['description', 'text'], ['status_id', 'uuid']], [
    px.ids, px.numids, pfx.prefix, pfx.vrf, pfx.site, pfx.vlan, pfx.description, pfxStatus,
  ]);
  // The space held: RFC 1918 as a RIR, its 10/8 and 172.16/12 as aggregates; a DHCP range in each site's first VLAN.
  const rir = await w.identities('rirs', 1);
  await w.insert('rirs', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['is_private', 'bool']], [rir.ids, rir.numids, ['RFC 1918'], ['rfc1918'], [true]]);
  const ag = await w.identities('aggregates', 2);
  await w.insert('aggregates', [['id', 'uuid'], ['numid', 'int8'], ['prefix', 'cidr'], ['rir_id', 'uuid']], [ag.ids, ag.numids, ['10.0.0.0/8', '172.16.0.0/12'], [rir.ids[0]!, rir.ids[0]!]]);
  const rg = await w.identities('ip_ranges', plan.sites.length);
  const firstVlan = plan.sites.map((s) => VLAN_BASE + s.index * 3 * 256);
  await w.insert('ip_ranges', [['id', 'uuid'], ['numid', 'int8'], ['start_address', 'inet'], ['end_address', 'inet'], ['vrf_id', 'uuid'], ['description', 'text']], [
    rg.ids, rg.numids, firstVlan.map((n) => `${ipv4(n + 100)}/24`), firstVlan.map((n) => `${ipv4(n + 199)}/24`), plan.sites.map(() => vrfId.get(VLANS[0]!.vrf)!), plan.sites.map((s) => `${s.slug} DHCP pool`),
  ], { status_id: sql`${ipamStatus('ipam.iprange', 'active')}::uuid` });
  // Written past the prefix hooks: their depth and children, as those would have kept them.
  await refreshTenantHierarchy(tx, tenantId);
  w.report('route targets, VRFs, VLAN groups, VLANs, prefixes, RIRs, aggregates, IP ranges', rtNames.length + VRFS.length + 2 * withRt.length + plan.sites.length + vlanCount + pfx.prefix.length + 3 + plan.sites.length);

  // --- halls and racks, planned so each device's rack and unit are written with the device.
  const placed = await writeDemoRacks(tx, w, tenantId, { ids: siteIds.ids, slugs: plan.sites.map((s) => s.slug) },
    plan.devices.map((d) => ({ site: d.site, role: d.role, rank: d.rank, uHeight: TYPE_BY_KEY.get(d.typeKey)!.uHeight })));

  // --- devices, with their primary IPv4 and rack place in the same INSERT: the address ids are allocated here
  // and the rows follow below. device → interface → address → device is a cycle, so the primary-IP foreign key
  // is deferrable (migration 0008) and deferred for this transaction: it is checked at commit instead of needing
  // a second UPDATE of every device (a full rewrite of the table and its indexes) once the addresses exist.
  w.begin();
  await sql`SET CONSTRAINTS devices_primary_ip4_id_fkey DEFERRED`.execute(tx);
  const dv = await w.identities('devices', plan.devices.length);
  const ip = await w.identities('ip_addresses', plan.devices.length);
  await w.insert('devices', [
    ['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['device_type_id', 'uuid'], ['role_id', 'uuid'], ['platform_id', 'uuid'], ['site_id', 'uuid'],
    ['status_id', 'uuid'], ['serial', 'text'], ['asset_tag', 'text'], ['custom_fields', 'jsonb'], ['primary_ip4_id', 'uuid'], ['rack_id', 'uuid'], ['position', 'int4'],
    ['owner_id', 'uuid'],
  ], [
    dv.ids, dv.numids, plan.devices.map((d) => d.name), plan.devices.map((d) => typeId.get(d.typeKey)!), plan.devices.map((d) => roleId.get(d.role)!),
    plan.devices.map((d) => platformId.get(d.platform)!), plan.devices.map((d) => siteIds.ids[d.site]!), plan.devices.map((d) => deviceStatus(d.status)),
    plan.devices.map((d) => d.serial), plan.devices.map((d) => d.assetTag), plan.devices.map((d) => JSON.stringify(d.customFields)), ip.ids, placed.rackId, placed.position,
    plan.devices.map((d) => org.deviceOwner(d)),
  ], { face: sql`'front'` });
  w.report('devices', plan.devices.length);

  // --- interfaces, materialised from each device's type like device creation does, with their LAGs: on each
  // leaf the first two access ports join its LAG, which trunks the site's VLANs (the first untagged), as a server
  // bond would. Every interface is written once, LAG and VLANs included. Only the ids later steps need are kept
  // (loopbacks, fabric ports), so memory stays proportional to devices, not interfaces.
  w.begin();
  const loopbackIface = new Array<string>(plan.devices.length);
  const fabricIfaces = new Array<string[]>(plan.devices.length);
  const ifaceTotal = plan.devices.reduce((n, d) => n + TYPE_BY_KEY.get(d.typeKey)!.interfaces.length, 0);
  const ifaceIds = await w.identities('interfaces', ifaceTotal);
  // Per device type: which fabric port each template is (-1: none).
  const fabricIndexOf = new Map(DEVICE_TYPES.map((t) => [t.key, t.interfaces.map((i) => t.fabricPorts.indexOf(i.name))]));
  const untaggedK = VLANS.reduce((best, v, k) => (v.vid < VLANS[best]!.vid ? k : best), 0);
  const tagged: [string[], string[]] = [[], []];
  let ifaceDone = 0;
  let lagMembers = 0;
  const deviceChunk = Math.max(1, Math.floor(CHUNK / 40));
  for (let start = 0; start < plan.devices.length; start += deviceChunk) {
    const cols: [string[], number[], string[], string[], string[], boolean[], string[], Array<string | null>, Array<string | null>, Array<string | null>] =
      [[], [], [], [], [], [], [], [], [], []];
    for (let d = start; d < Math.min(plan.devices.length, start + deviceChunk); d++) {
      const device = plan.devices[d]!;
      const type = TYPE_BY_KEY.get(device.typeKey)!;
      const fabricIndexes = fabricIndexOf.get(type.key)!;
      const first = ifaceDone;
      const lagId = type.lag ? ifaceIds.ids[first + type.interfaces.findIndex((t) => t.name === type.lag!.name)]! : null;
      const siteVlans = VLANS.map((_v, k) => vl.ids[device.site * VLANS.length + k]!);
      const fabric: string[] = [];
      type.interfaces.forEach((t, k) => {
        const id = ifaceIds.ids[first + k]!;
        const fabricIndex = fabricIndexes[k]!;
        const isLag = t.type === 'lag';
        const member = lagId !== null && type.lag!.members.includes(t.name);
        cols[0].push(id);
        cols[1].push(ifaceIds.numids[first + k]!);
        cols[2].push(dv.ids[d]!);
        cols[3].push(t.name);
        cols[4].push(t.type);
        cols[5].push(t.mgmtOnly ?? false);
        cols[6].push(fabricIndex >= 0 ? fabricDescription(plan, device, fabricIndex) : '');
        cols[7].push(member ? lagId : null);
        cols[8].push(isLag ? 'tagged' : null);
        cols[9].push(isLag ? siteVlans[untaggedK]! : null);
        if (member) lagMembers++;
        if (isLag) siteVlans.forEach((v, vk) => vk !== untaggedK && (tagged[0].push(id), tagged[1].push(v)));
        if (t.name === type.loopback) loopbackIface[d] = id;
        if (fabricIndex >= 0) fabric[fabricIndex] = id;
      });
      ifaceDone += type.interfaces.length;
      fabricIfaces[d] = fabric;
    }
    await w.insert('interfaces', [
      ['id', 'uuid'], ['numid', 'int8'], ['device_id', 'uuid'], ['name', 'text'], ['type', 'text'], ['mgmt_only', 'bool'], ['description', 'text'],
      ['lag_id', 'uuid'], ['mode', 'text'], ['untagged_vlan_id', 'uuid'],
    ], cols);
  }
  await w.insert('interface_tagged_vlans', [['interface_id', 'uuid'], ['vlan_id', 'uuid']], tagged);
  w.report('interfaces (LAG members and tagged VLANs in them)', ifaceTotal + lagMembers + tagged[0].length);

  // --- one loopback address per device (the primary IPv4 the devices already point at), on its loopback.
  w.begin();
  await w.insert('ip_addresses', [['id', 'uuid'], ['numid', 'int8'], ['address', 'inet'], ['dns_name', 'text'], ['assigned_interface_id', 'uuid']], [
    ip.ids, ip.numids, plan.devices.map((d) => d.loopback), plan.devices.map((d) => `${d.name}.${plan.sites[d.site]!.slug}.dc.example.net`), loopbackIface,
  ], { status_id: sql`${addressStatus}::uuid`, role: sql`'loopback'`, description: sql`'Router ID and management'` });
  // Written past the address hooks: the prefixes' utilisation, as those would have kept it. Its statement counts
  // each prefix's addresses; planned on the statistics from before the load, it read them without their index.
  await sql`ANALYZE prefixes, ip_addresses, ip_ranges`.execute(tx);
  await refreshTenantUtilization(tx, tenantId);
  w.report('IP addresses (primary IPv4 on the loopback)', plan.devices.length);

  // --- cables: every leaf and border to every spine of its site (A side the leaf/border, B side the spine).
  w.begin();
  const links: Array<{ a: string; b: string; aDev: PlannedDevice; bDev: PlannedDevice; uplink: number }> = [];
  for (const d of plan.devices) {
    if (d.role !== 'leaf' && d.role !== 'border') continue;
    const siteStart = d.site * SITE_SIZE;
    for (let u = 0; u < SPINES; u++) {
      const spine = plan.devices[siteStart + u];
      if (!spine) continue;
      links.push({ a: fabricIfaces[d.index]![u]!, b: fabricIfaces[spine.index]![spinePortIndex(d.role, d.rank)]!, aDev: d, bDev: spine, uplink: u });
    }
  }
  // Up to PANEL_PORTS uplinks per site to its first spine (leaves first, then borders, by name) run through the
  // site's patch panels: the cable from the leaf ends on pp01's front port k, a patch cord runs pp02's front port k
  // to the spine, and a trunk joins the panels' rear ports.
  const viaPanels = new Map<number, Array<{ link: number; k: number }>>();
  const byName = (x: PlannedDevice, y: PlannedDevice) => Number(x.role !== 'leaf') - Number(y.role !== 'leaf') || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0);
  const firstSpineLinks = links.map((l, i) => ({ l, i })).filter(({ l }) => l.uplink === 0).sort((x, y) => x.l.aDev.site - y.l.aDev.site || byName(x.l.aDev, y.l.aDev));
  for (const { l, i } of firstSpineLinks) {
    const list = viaPanels.get(l.aDev.site) ?? [];
    if (list.length < PANEL_PORTS) list.push({ link: i, k: list.length + 1 });
    viaPanels.set(l.aDev.site, list);
  }
  const panelSites = [...viaPanels.keys()];
  const panels = await writePatchPanels(tx, w, tenantId, panelSites.map((si) => ({ id: siteIds.ids[si]!, slug: plan.sites[si]!.slug, coreRack: placed.coreRack.get(si) ?? null })));
  const panelEnd = new Map<number, { front1: string; front2: string }>();
  panelSites.forEach((si, p) => viaPanels.get(si)!.forEach(({ link, k }) => panelEnd.set(link, { front1: panels[p]!.front[0][k - 1]!, front2: panels[p]!.front[1][k - 1]! })));

  // Cables: the fabric links (DAC, or fibre to a panel: a copper DAC does not plug into an LC panel), then the
  // patch cords from pp02 to the spines, then one 30 m trunk per site.
  const cords = [...panelEnd.entries()];
  const cableCount = links.length + cords.length + panelSites.length;
  const cb = await w.identities('cables', cableCount);
  const fibre = (i: number) => i >= links.length || panelEnd.has(i);
  await w.insert('cables', [['id', 'uuid'], ['numid', 'int8'], ['label', 'text'], ['type', 'text'], ['length', 'int4']], [
    cb.ids, cb.numids, cb.numids.map((n) => `C${String(n).padStart(7, '0')}`), cb.ids.map((_c, i) => (fibre(i) ? 'mmf-om4' : 'dac-passive')),
    cb.ids.map((_c, i) => (i >= links.length + cords.length ? 30 : fibre(i) ? 2 : 3)),
  ], { length_unit: sql`'m'`, status_id: sql`${ipamStatus('dcim.cable', 'connected')}::uuid` });
  const ends: Array<[cable: string, end: 'A' | 'B', type: string, id: string]> = [];
  links.forEach((l, i) => {
    const panel = panelEnd.get(i);
    ends.push([cb.ids[i]!, 'A', 'dcim.interface', l.a], [cb.ids[i]!, 'B', panel ? 'dcim.frontport' : 'dcim.interface', panel ? panel.front1 : l.b]);
  });
  cords.forEach(([link, panel], j) => {
    const id = cb.ids[links.length + j]!;
    ends.push([id, 'A', 'dcim.frontport', panel.front2], [id, 'B', 'dcim.interface', links[link]!.b]);
  });
  panels.forEach((p, j) => {
    const id = cb.ids[links.length + cords.length + j]!;
    ends.push([id, 'A', 'dcim.rearport', p.rear[0]], [id, 'B', 'dcim.rearport', p.rear[1]]);
  });
  await w.insert('cable_terminations', [['cable_id', 'uuid'], ['cable_end', 'text'], ['termination_type', 'text'], ['termination_id', 'uuid']], [
    ends.map((e) => e[0]), ends.map((e) => e[1]), ends.map((e) => e[2]), ends.map((e) => e[3]),
  ]);
  w.report('cables and terminations (fabric, patch panels, patch cords, trunks)', cableCount + ends.length);

  // --- BGP: one instance per spine, leaf and border; a session on both ends of every fabric link.
  w.begin();
  const bfd = await w.identities('bfd_profiles', 1);
  await w.insert('bfd_profiles', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text']], [bfd.ids, bfd.numids, ['fabric']], {
    min_tx: sql`300`, min_rx: sql`300`, multiplier: sql`3`, description: sql`'Leaf-spine links'`,
  });
  const routers = plan.devices.filter((d) => d.asn !== null);
  const bi = await w.identities('bgp_instances', routers.length);
  const instanceOf = new Map<number, string>(routers.map((d, i) => [d.index, bi.ids[i]!]));
  await w.insert('bgp_instances', [['id', 'uuid'], ['numid', 'int8'], ['device_id', 'uuid'], ['asn', 'int8'], ['router_id', 'inet'], ['address_families', 'text', 'text[]'], ['maximum_paths', 'int4']], [
    bi.ids, bi.numids, routers.map((d) => dv.ids[d.index]!), routers.map((d) => d.asn!), routers.map((d) => d.loopback.split('/')[0]!),
    routers.map((d) => (d.role !== 'border' && plan.sites[d.site]!.fabric.evpn ? '{ipv4-unicast,l2vpn-evpn}' : '{ipv4-unicast}')),
    routers.map((d) => (d.role === 'spine' ? 32 : 4)),
  ], { graceful_restart: sql`true`, bfd_profile_id: sql`${bfd.ids[0]!}::uuid` });
  const sessions: { instance: string[]; name: string[]; local: string[]; remote: string[]; asn: number[]; families: string[] } = {
    instance: [], name: [], local: [], remote: [], asn: [], families: [],
  };
  for (const l of links) {
    for (const [me, peer] of [[l.aDev, l.bDev], [l.bDev, l.aDev]] as const) {
      sessions.instance.push(instanceOf.get(me.index)!);
      sessions.name.push(peer.name);
      sessions.local.push(me.loopback.split('/')[0]!);
      sessions.remote.push(peer.loopback.split('/')[0]!);
      sessions.asn.push(peer.asn!);
      sessions.families.push(l.aDev.role === 'leaf' && plan.sites[me.site]!.fabric.evpn ? '{ipv4-unicast,l2vpn-evpn}' : '{ipv4-unicast}');
    }
  }
  const bs = await w.identities('bgp_sessions', sessions.instance.length);
  await w.insert('bgp_sessions', [
    ['id', 'uuid'], ['numid', 'int8'], ['instance_id', 'uuid'], ['name', 'text'], ['local_address', 'inet'], ['remote_address', 'inet'], ['remote_asn', 'int8'], ['address_families', 'text', 'text[]'],
  ], [bs.ids, bs.numids, sessions.instance, sessions.name, sessions.local, sessions.remote, sessions.asn, sessions.families], {
    bfd: sql`true`, bfd_profile_id: sql`${bfd.ids[0]!}::uuid`, ebgp_multihop: sql`2`,
  });
  w.report('BGP (BFD profile, instances, sessions)', 1 + routers.length + sessions.instance.length);

  // --- NetBox's IPAM extras: the BGP instances' ASNs as objects, a VRRP group per border pair, service templates.
  await writeIpamExtras(tx, w, tenantId);

  // --- config contexts: global, per top region, per platform, per role.
  w.begin();
  const contexts: Array<{ name: string; weight: number; data: unknown; regions?: string[]; platforms?: string[]; roles?: string[] }> = [
    { name: 'global', weight: 100, data: { ntp: { servers: ['10.255.0.1', '10.255.0.2'] }, syslog: { servers: ['10.255.1.10'] }, domain: 'dc.example.net' } },
    ...REGIONS.map((r, i) => ({ name: `region-${r.slug}`, weight: 200, data: { dns: { servers: [`10.255.${10 + i}.53`, `10.255.${10 + i}.54`] }, timezone: ['Europe/Amsterdam', 'America/New_York', 'Asia/Singapore'][i] }, regions: [r.slug] })),
    { name: 'platform-eos', weight: 300, data: { management_api: { http: true }, aaa: 'tacacs' }, platforms: ['eos'] },
    { name: 'platform-nx-os', weight: 300, data: { features: ['bgp', 'bfd', 'nv overlay', 'vn-segment-vlan-based'] }, platforms: ['nx-os'] },
    { name: 'platform-junos', weight: 300, data: { commit: { synchronize: true } }, platforms: ['junos'] },
    { name: 'role-leaf', weight: 400, data: { bgp: { maximum_paths: 4 }, mtu: 9214 }, roles: ['leaf'] },
    { name: 'role-spine', weight: 400, data: { bgp: { maximum_paths: 32 }, mtu: 9214 }, roles: ['spine'] },
  ];
  const cc = await w.identities('config_contexts', contexts.length);
  await w.insert('config_contexts', [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['weight', 'int4'], ['data', 'jsonb']], [
    cc.ids, cc.numids, contexts.map((c) => c.name), contexts.map((c) => c.weight), contexts.map((c) => JSON.stringify(c.data)),
  ]);
  const joins = (key: 'regions' | 'platforms' | 'roles', ids: Map<string, string>): [string[], string[]] => {
    const a: string[] = [];
    const b: string[] = [];
    contexts.forEach((c, i) => (c[key] ?? []).forEach((k) => (a.push(cc.ids[i]!), b.push(ids.get(k)!))));
    return [a, b];
  };
  await w.insert('config_context_regions', [['config_context_id', 'uuid'], ['region_id', 'uuid']], joins('regions', regionId));
  await w.insert('config_context_platforms', [['config_context_id', 'uuid'], ['platform_id', 'uuid']], joins('platforms', new Map([...platformId])));
  await w.insert('config_context_roles', [['config_context_id', 'uuid'], ['role_id', 'uuid']], joins('roles', new Map([...roleId])));
  w.report('config contexts', contexts.length);

  // --- console and power: PSUs and consoles on every device, panels, feeds, PDUs and console servers.
  await writeConsolePower(tx, w, tenantId, [...typeId.values()]);
  // --- modular hardware: a chassis with line cards and inventory items, a leaf pair as a virtual chassis.
  await writeDemoModules(tx, w, tenantId);
  await writeVirtWireless(tx, w, tenantId);
  // --- circuits: transit from three providers on the border routers' free ports (demo-circuits.ts).
  await writeDemoCircuits(tx, w, tenantId);
}

/** "to ams1-spine02 Ethernet5/1": what an operator writes on a fabric port. */
function fabricDescription(plan: { devices: PlannedDevice[] }, device: PlannedDevice, fabricIndex: number): string {
  const siteStart = device.site * SITE_SIZE;
  if (device.role === 'leaf' || device.role === 'border') {
    const spine = plan.devices[siteStart + fabricIndex];
    if (!spine) return '';
    return `to ${spine.name} ${TYPE_BY_KEY.get(spine.typeKey)!.fabricPorts[spinePortIndex(device.role, device.rank)]}`;
  }
  if (device.role === 'spine') {
    const peerPosition = fabricIndex < 32 ? FIRST_LEAF + fabricIndex : fabricIndex < 34 ? SPINES + (fabricIndex - 32) : -1;
    const peer = peerPosition >= 0 ? plan.devices[siteStart + peerPosition] : undefined;
    if (!peer) return '';
    return `to ${peer.name} ${TYPE_BY_KEY.get(peer.typeKey)!.fabricPorts[device.rank]}`;
  }
  return '';
}
