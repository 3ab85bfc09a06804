// Power: power ports (what a device draws from) and power outlets (what a PDU hands out), on devices and as
// templates on device types; power panels (a site's distribution boards) and the power feeds they deliver to racks.
// A power port is cabled to an outlet or a feed; an outlet is fed by a power port of its own device, so a trace from
// a server's power supply crosses the PDU (outlet → its power port) and ends at the feed, whose parent is the panel.
import { sql } from 'kysely';
import { defineModel, type FieldDef, type HookArgs } from '../core/registry.ts';
import { ErrorCollector } from '../core/errors.ts';
import { callerTenant } from '../core/access.ts';
import { ownerField } from '../organization/owners.ts';
import { linkPeerOf } from './cabling.ts';
import { registerCableEnd } from './cable-ends.ts';
import { connectedEndpointOf } from './trace.ts';
import { powerUtilizationOf } from './power-utilization.ts';
import './power-choices.ts';
import { cableEndDeleteHooks, checkMarkConnected, descriptionField, labelField, markConnectedField, merged, onDevice } from './component-rules.ts';
import { checkComponentModule, checkTemplateOwner, componentModuleField, templateDeviceTypeField, templateModuleTypeField } from './template-owner.ts';
import { registerModuleComponentKind } from './module-materialize.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

registerCableEnd({ type: 'dcim.powerport', table: 'power_ports', parent: onDevice, endpoint: true, markConnected: true, compatible: ['dcim.poweroutlet', 'dcim.powerfeed'] });
// A trace reaching an outlet goes on from the PDU's power port that feeds it (and on to that port's own cable).
registerCableEnd({
  type: 'dcim.poweroutlet',
  table: 'power_outlets',
  parent: onDevice,
  endpoint: true,
  markConnected: true,
  compatible: ['dcim.powerport'],
  passThrough: { type: 'dcim.powerport', next: (far, mine) => sql`SELECT o.power_port_id FROM power_outlets o WHERE o.id = ${far} AND ${mine('o')}` },
});
registerCableEnd({
  type: 'dcim.powerfeed',
  table: 'power_feeds',
  parent: { model: 'dcim.powerpanel', table: 'power_panels', column: 'power_panel_id', nameColumn: 'name' },
  endpoint: true,
  markConnected: true,
  compatible: ['dcim.powerport'],
});

type ValidateArgs = HookArgs & { input: Record<string, unknown>; existing: Record<string, unknown> | null };

const draw = (label: string, help: string): FieldDef => ({ kind: 'integer', nullable: true, min: 1, max: 32767, label, help });
const maximumDraw = draw('Maximum draw (W)', 'The most this port draws, in watts.');
const allocatedDraw = draw('Allocated draw (W)', 'The draw planned for this port, in watts; at most its maximum draw.');
const feedLeg: FieldDef = { kind: 'choice', vocabulary: 'power_feed_legs', nullable: true, label: 'Feed leg', help: 'The phase of a three-phase feed this outlet is on.' };
const powerPortType: FieldDef = { kind: 'choice', vocabulary: 'power_port_types', nullable: true, help: 'The plug (IEC 60320 C14, NEMA 5-15P…).' };
const outletType: FieldDef = { kind: 'choice', vocabulary: 'power_outlet_types', nullable: true, help: 'The receptacle (IEC 60320 C13, NEMA 5-15R…).' };

/** NetBox: the allocated draw cannot exceed the maximum draw. */
function checkDraws(input: Record<string, unknown>, existing: Record<string, unknown> | null): void {
  const maximum = merged(input, existing, 'maximum_draw');
  const allocated = merged(input, existing, 'allocated_draw');
  if (typeof maximum === 'number' && typeof allocated === 'number' && allocated > maximum) {
    const errors = new ErrorCollector();
    errors.add('allocated_draw', `Allocated draw (${allocated} W) cannot exceed the maximum draw (${maximum} W).`);
    errors.throwIfAny();
  }
}

/** An outlet (or outlet template) is fed by a power port of its own device (or device type). */
async function checkOutletPowerPort({ tx, ctx, input, existing }: ValidateArgs, owner: 'device' | 'device_type' | 'module_type', portTable: string): Promise<void> {
  const column = `${owner}_id`;
  const port = merged(input, existing, 'power_port', 'power_port_id');
  const ownerId = merged(input, existing, owner, column);
  if (typeof port !== 'string' || typeof ownerId !== 'string') return;
  if (!('power_port' in input) && !(owner in input)) return;
  const { rows } = await sql<{ owner_id: string; name: string }>`SELECT ${sql.ref(column)} AS owner_id, name FROM ${sql.table(portTable)}
    WHERE id = ${port} AND ${callerTenant(ctx)}`.execute(tx);
  const r = rows[0];
  if (r && r.owner_id !== ownerId) {
    const what = owner === 'device' ? 'device' : owner === 'device_type' ? 'device type' : 'module type';
    const errors = new ErrorCollector();
    errors.add('power_port', `Power port ${r.name} is on another ${what}: an outlet is fed by a power port of its own ${what}.`);
    errors.throwIfAny();
  }
}

export const powerPortTemplateModel = defineModel({
  name: 'dcim.powerporttemplate',
  table: 'power_port_templates',
  path: '/api/power-port-templates/',
  label: 'power port template',
  tenantScoped: true,
  displayParent: ['device_type', 'module_type'],
  fields: {
    device_type: templateDeviceTypeField,
    module_type: templateModuleTypeField,
    name: { kind: 'string', maxLength: 64, naturalOrder: true },
    label: labelField,
    type: powerPortType,
    maximum_draw: maximumDraw,
    allocated_draw: allocatedDraw,
    description: descriptionField,
  },
  searchFields: ['name', 'label', 'description'],
  defaultOrdering: ['device_type', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate(args) {
      checkTemplateOwner(args);
      checkDraws(args.input, args.existing);
    },
  },
});

export const powerOutletTemplateModel = defineModel({
  name: 'dcim.poweroutlettemplate',
  table: 'power_outlet_templates',
  path: '/api/power-outlet-templates/',
  label: 'power outlet template',
  tenantScoped: true,
  displayParent: ['device_type', 'module_type'],
  fields: {
    device_type: templateDeviceTypeField,
    module_type: templateModuleTypeField,
    name: { kind: 'string', maxLength: 64, naturalOrder: true },
    label: labelField,
    type: outletType,
    power_port: {
      kind: 'fk',
      target: 'dcim.powerporttemplate',
      nullable: true,
      onDelete: 'set_null',
      label: 'Power port',
      help: 'The power port template of the same device type (or module type) that feeds this outlet.',
      pickerFilters: { device_type_id: '$field:device_type' },
    },
    feed_leg: feedLeg,
    description: descriptionField,
  },
  searchFields: ['name', 'label', 'description'],
  defaultOrdering: ['device_type', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate(args) {
      const owner = checkTemplateOwner(args);
      await checkOutletPowerPort(args, owner, 'power_port_templates');
    },
  },
});

export const powerPortModel = defineModel({
  name: 'dcim.powerport',
  table: 'power_ports',
  path: '/api/power-ports/',
  label: 'power port',
  tenantScoped: true,
  displayParent: ['device'],
  fields: {
    device: { kind: 'fk', target: 'dcim.device', onDelete: 'cascade' },
    module: componentModuleField,
    name: { kind: 'string', maxLength: 64, naturalOrder: true },
    label: labelField,
    type: powerPortType,
    maximum_draw: maximumDraw,
    allocated_draw: allocatedDraw,
    mark_connected: markConnectedField,
    description: descriptionField,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  computed: { link_peer: linkPeerOf('dcim.powerport'), connected_endpoint: connectedEndpointOf('dcim.powerport') },
  searchFields: ['name', 'label', 'description'],
  defaultOrdering: ['device', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate(args) {
      checkDraws(args.input, args.existing);
      await checkComponentModule(args);
      await checkMarkConnected('dcim.powerport', args);
    },
    ...cableEndDeleteHooks('dcim.powerport'),
  },
});

export const powerOutletModel = defineModel({
  name: 'dcim.poweroutlet',
  table: 'power_outlets',
  path: '/api/power-outlets/',
  label: 'power outlet',
  tenantScoped: true,
  displayParent: ['device'],
  fields: {
    device: { kind: 'fk', target: 'dcim.device', onDelete: 'cascade' },
    module: componentModuleField,
    name: { kind: 'string', maxLength: 64, naturalOrder: true },
    label: labelField,
    type: outletType,
    status: { kind: 'choice', vocabulary: 'power_outlet_statuses', default: 'enabled', help: 'Whether the outlet is switched on (a switched PDU), off, or faulty.' },
    power_port: {
      kind: 'fk',
      target: 'dcim.powerport',
      nullable: true,
      onDelete: 'set_null',
      label: 'Power port',
      help: 'The power port of the same device that feeds this outlet (a PDU\'s inlet).',
      pickerFilters: { device_id: '$field:device' },
    },
    feed_leg: feedLeg,
    mark_connected: markConnectedField,
    description: descriptionField,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  computed: { link_peer: linkPeerOf('dcim.poweroutlet'), connected_endpoint: connectedEndpointOf('dcim.poweroutlet') },
  searchFields: ['name', 'label', 'description'],
  defaultOrdering: ['device', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate(args) {
      await checkOutletPowerPort(args, 'device', 'power_ports');
      await checkComponentModule(args);
      await checkMarkConnected('dcim.poweroutlet', args);
    },
    ...cableEndDeleteHooks('dcim.poweroutlet'),
  },
});

/** A power panel's location is in its site. */
async function checkPanelLocation({ tx, ctx, input, existing }: ValidateArgs): Promise<void> {
  const site = merged(input, existing, 'site', 'site_id');
  const location = merged(input, existing, 'location', 'location_id');
  if (typeof location !== 'string' || (!('location' in input) && !('site' in input))) return;
  const { rows } = await sql<{ name: string; site_id: string }>`SELECT name, site_id FROM locations WHERE id = ${location} AND ${callerTenant(ctx)}`.execute(tx);
  if (rows[0] && rows[0].site_id !== site) {
    const errors = new ErrorCollector();
    errors.add('location', `${rows[0].name} is a location of another site; a power panel's location must be in its site.`);
    errors.throwIfAny();
  }
}

export const powerPanelModel = defineModel({
  name: 'dcim.powerpanel',
  table: 'power_panels',
  path: '/api/power-panels/',
  label: 'power panel',
  tenantScoped: true,
  displayParent: ['site'],
  fields: {
    site: { kind: 'fk', target: 'organization.site', onDelete: 'protect' },
    location: { kind: 'fk', target: 'dcim.location', nullable: true, onDelete: 'protect', help: 'A location of the same site.', pickerFilters: { site_id: '$field:site' } },
    // Unique per site (a database constraint), as NetBox has it.
    name: { kind: 'string', maxLength: 100, naturalOrder: true },
    description: descriptionField,
    comments: { kind: 'text', default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  computed: { power_utilization: powerUtilizationOf('panel') },
  searchFields: ['name', 'description', 'comments'],
  defaultOrdering: ['site', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: { validate: checkPanelLocation },
});

/** A feed's rack is in its panel's site; an AC feed's voltage is positive, no feed's is 0 (NetBox's rules). */
async function checkPowerFeed({ tx, ctx, input, existing }: ValidateArgs): Promise<void> {
  const errors = new ErrorCollector();
  const voltage = merged(input, existing, 'voltage');
  const supply = merged(input, existing, 'supply') ?? 'ac';
  if (voltage === 0) errors.add('voltage', 'A feed has a voltage: enter it in volts (negative only for DC).');
  else if (typeof voltage === 'number' && voltage < 0 && supply === 'ac') errors.add('voltage', 'Voltage cannot be negative for an AC supply.');
  const panel = merged(input, existing, 'power_panel', 'power_panel_id');
  const rack = merged(input, existing, 'rack', 'rack_id');
  if (typeof panel === 'string' && typeof rack === 'string' && ('rack' in input || 'power_panel' in input)) {
    const { rows } = await sql<{ rack: string; rack_site: string; panel: string; panel_site: string; same: boolean }>`
      SELECT r.name AS rack, rs.name AS rack_site, p.name AS panel, ps.name AS panel_site, r.site_id = p.site_id AS same
      FROM racks r JOIN sites rs ON rs.id = r.site_id, power_panels p JOIN sites ps ON ps.id = p.site_id
      WHERE r.id = ${rack} AND p.id = ${panel} AND ${callerTenant(ctx, 'r')} AND ${callerTenant(ctx, 'p')}`.execute(tx);
    const r = rows[0];
    if (r && !r.same) errors.add('rack', `Rack ${r.rack} is in ${r.rack_site} and power panel ${r.panel} in ${r.panel_site}: a feed's rack must be in its panel's site.`);
  }
  errors.throwIfAny();
  await checkMarkConnected('dcim.powerfeed', { tx, ctx, input, existing } as ValidateArgs);
}

export const powerFeedModel = defineModel({
  name: 'dcim.powerfeed',
  table: 'power_feeds',
  path: '/api/power-feeds/',
  label: 'power feed',
  tenantScoped: true,
  displayParent: ['power_panel'],
  fields: {
    power_panel: { kind: 'fk', target: 'dcim.powerpanel', onDelete: 'protect', label: 'Power panel' },
    rack: { kind: 'fk', target: 'dcim.rack', nullable: true, onDelete: 'protect', help: 'A rack in the panel\'s site that this feed serves.' },
    // Unique per panel (a database constraint).
    name: { kind: 'string', maxLength: 100, naturalOrder: true },
    // NetBox's own feed statuses (offline, active, planned, failed) as a choice, not Cairn's configurable statuses.
    status: { kind: 'choice', vocabulary: 'power_feed_statuses', default: 'active' },
    type: { kind: 'choice', vocabulary: 'power_feed_types', default: 'primary' },
    supply: { kind: 'choice', vocabulary: 'power_feed_supplies', default: 'ac' },
    phase: { kind: 'choice', vocabulary: 'power_feed_phases', default: 'single-phase' },
    voltage: { kind: 'integer', min: -32768, max: 32767, default: 120, label: 'Voltage (V)', help: 'Negative only for a DC supply.' },
    amperage: { kind: 'integer', min: 1, max: 32767, default: 20, label: 'Amperage (A)' },
    max_utilization: { kind: 'integer', min: 1, max: 100, default: 80, label: 'Max utilisation (%)', help: 'The share of the feed\'s capacity that may be drawn.' },
    available_power: {
      kind: 'integer',
      readOnly: true,
      label: 'Available power (W)',
      help: 'Volts × amps × max utilisation, × √3 for a three-phase feed.',
    },
    mark_connected: markConnectedField,
    description: descriptionField,
    comments: { kind: 'text', default: '' },
    owner: ownerField,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  computed: { link_peer: linkPeerOf('dcim.powerfeed'), connected_endpoint: connectedEndpointOf('dcim.powerfeed'), power_utilization: powerUtilizationOf('feed') },
  searchFields: ['name', 'description', 'comments'],
  defaultOrdering: ['power_panel', 'name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: { validate: checkPowerFeed, ...cableEndDeleteHooks('dcim.powerfeed') },
});

// A module type's power templates make the installed module's power ports, then its outlets (fed by those ports).
registerModuleComponentKind({ template: 'dcim.powerporttemplate', component: 'dcim.powerport', columns: ['type', 'maximum_draw', 'allocated_draw', 'description'], substituted: ['name', 'label'] });
registerModuleComponentKind({
  template: 'dcim.poweroutlettemplate',
  component: 'dcim.poweroutlet',
  columns: ['type', 'feed_leg', 'description'],
  substituted: ['name', 'label'],
  reference: { column: 'power_port_id', template: 'dcim.powerporttemplate' },
});
