// Circuits (NetBox's circuits app): providers, their accounts and networks, circuit types, circuits and their A and
// Z terminations. A termination is a cable end (registered in termination-cabling.ts): a trace crosses a circuit
// from one termination to the other.
import { defineModel } from '../core/registry.ts';
import { ownerField } from '../organization/owners.ts';
import { linkPeerOf } from '../dcim/cabling.ts';
import './choices.ts';
import { checkCircuitAccount, checkTerminationTarget, deleteCablesOfCircuits, deleteTerminationCables } from './rules.ts';
import './termination-cabling.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

const description = { kind: 'string', maxLength: 200, default: '' } as const;
const comments = { kind: 'text', default: '' } as const;
const speed = (label: string, help: string) => ({ kind: 'integer', nullable: true, min: 0, max: 2_147_483_647, label, help }) as const;

export const providerModel = defineModel({
  name: 'circuits.provider',
  table: 'providers',
  path: '/api/providers/',
  label: 'provider',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true, help: 'The carrier or service provider, e.g. Level 3.' },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    asns: { kind: 'm2m', target: 'ipam.asn', through: { table: 'provider_asns', from: 'provider_id', to: 'asn_id' }, label: 'ASNs', help: 'The provider\'s autonomous systems.' },
    description,
    comments,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
});

export const providerAccountModel = defineModel({
  name: 'circuits.provideraccount',
  table: 'provider_accounts',
  path: '/api/provider-accounts/',
  label: 'provider account',
  tenantScoped: true,
  displayField: 'account',
  displayParent: ['provider'],
  fields: {
    provider: { kind: 'fk', target: 'circuits.provider', onDelete: 'protect' },
    name: { kind: 'string', maxLength: 100, default: '', help: 'An optional name for the account, unique per provider.' },
    account: { kind: 'string', maxLength: 100, label: 'Account ID', help: 'The account number the provider knows you by, unique per provider.' },
    description,
    comments,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['account', 'name', 'description'],
  defaultOrdering: ['provider', 'account'],
});

export const providerNetworkModel = defineModel({
  name: 'circuits.providernetwork',
  table: 'provider_networks',
  path: '/api/provider-networks/',
  label: 'provider network',
  tenantScoped: true,
  displayParent: ['provider'],
  fields: {
    provider: { kind: 'fk', target: 'circuits.provider', onDelete: 'protect' },
    name: { kind: 'string', maxLength: 100, help: 'A network of the provider a circuit may end on (an MPLS cloud, an internet exchange), unique per provider.' },
    service_id: { kind: 'string', maxLength: 100, default: '', label: 'Service ID' },
    description,
    comments,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'service_id', 'description'],
  defaultOrdering: ['provider', 'name'],
});

export const circuitTypeModel = defineModel({
  name: 'circuits.circuittype',
  table: 'circuit_types',
  path: '/api/circuit-types/',
  label: 'circuit type',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true, help: 'What the circuit is for, e.g. Transit, Peering, MPLS.' },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    color: { kind: 'color', nullable: true, default: null },
    description,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
});

export const circuitModel = defineModel({
  name: 'circuits.circuit',
  table: 'circuits',
  path: '/api/circuits/',
  label: 'circuit',
  tenantScoped: true,
  displayField: 'cid',
  fields: {
    cid: { kind: 'string', maxLength: 100, naturalOrder: true, label: 'Circuit ID', help: 'The provider\'s identifier for the circuit, unique per provider.' },
    provider: { kind: 'fk', target: 'circuits.provider', onDelete: 'protect' },
    provider_account: {
      kind: 'fk', target: 'circuits.provideraccount', nullable: true, onDelete: 'protect', label: 'Provider account',
      help: 'An account of the circuit\'s provider.', pickerFilters: { provider: '$field:provider' },
    },
    type: { kind: 'fk', target: 'circuits.circuittype', onDelete: 'protect' },
    status: { kind: 'fk', target: 'extras.status', nullable: true, onDelete: 'protect' },
    owner: ownerField,
    install_date: { kind: 'date', nullable: true, label: 'Installed' },
    termination_date: { kind: 'date', nullable: true, label: 'Terminates', help: 'When the contract ends.' },
    commit_rate: speed('Commit rate (Kbps)', 'The committed rate in Kbps (1 Gbps is 1000000).'),
    description,
    comments,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['cid', 'description'],
  defaultOrdering: ['provider', 'cid'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    // The status's rules: wireStatusFields (src/extras/statuses.ts).
    validate: checkCircuitAccount,
    // Its terminations go by cascade: their cables first.
    beforeDelete: ({ tx, ctx, row }) => deleteCablesOfCircuits(tx, ctx, [String(row.id)]),
    beforeDeleteMany: ({ tx, ctx, rows }) => deleteCablesOfCircuits(tx, ctx, rows.map((r) => String(r.id))),
  },
});

// The terminated object as NetBox 4.2 writes it (termination_type + termination_id); site, location and
// provider_network are the same reference read back as relations (generated columns, see migration 0046), for
// filters and links.
const terminatedBy = (target: string, label: string) => ({ kind: 'fk', target, nullable: true, readOnly: true, onDelete: 'protect', label, help: `Filled in from the termination's type and object.` }) as const;

export const circuitTerminationModel = defineModel({
  name: 'circuits.circuittermination',
  table: 'circuit_terminations',
  path: '/api/circuit-terminations/',
  label: 'circuit termination',
  tenantScoped: true,
  displayField: 'term_side',
  displayParent: ['circuit'],
  fields: {
    circuit: { kind: 'fk', target: 'circuits.circuit', onDelete: 'cascade' },
    term_side: { kind: 'choice', vocabulary: 'circuit_term_sides', label: 'Termination side', help: 'A or Z: each circuit has at most one of each.' },
    termination_type: { kind: 'choice', vocabulary: 'circuit_termination_types', label: 'Termination type', help: 'What this end of the circuit is at: a site, a location or a provider network.' },
    termination_id: { kind: 'uuid', label: 'Termination', help: 'The id of the site, location or provider network.' },
    site: terminatedBy('organization.site', 'Site'),
    location: terminatedBy('dcim.location', 'Location'),
    provider_network: terminatedBy('circuits.providernetwork', 'Provider network'),
    port_speed: speed('Port speed (Kbps)', 'The physical port speed in Kbps.'),
    upstream_speed: speed('Upstream speed (Kbps)', 'Upstream speed in Kbps, where it differs from the port speed.'),
    xconnect_id: { kind: 'string', maxLength: 50, default: '', label: 'Cross-connect ID' },
    pp_info: { kind: 'string', maxLength: 100, default: '', label: 'Patch panel / port(s)' },
    description,
    mark_connected: { kind: 'boolean', default: false, label: 'Mark connected', help: 'Treat as if a cable is connected.' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  computed: { link_peer: linkPeerOf('circuits.circuittermination') },
  searchFields: ['xconnect_id', 'pp_info', 'description'],
  defaultOrdering: ['circuit', 'term_side'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    validate: checkTerminationTarget,
    beforeDelete: ({ tx, ctx, row }) => deleteTerminationCables(tx, ctx, [String(row.id)]),
    beforeDeleteMany: ({ tx, ctx, rows }) => deleteTerminationCables(tx, ctx, rows.map((r) => String(r.id))),
  },
});
