// AS numbers (ipam.asn) and the ranges they are handed out from (ipam.asnrange), as NetBox keeps them: an ASN is
// unique in the tenant and shown as AS65001 (a 4-byte one with its asdot form); a range runs from start to end of
// one RIR and hands out its free numbers (available-asns, ./asn-available.ts).
import { sql } from 'kysely';
import { defineModel, requireModel, type ComputedField } from '../core/registry.ts';
import { fieldError } from '../core/errors.ts';
import { sameTenant, scopeCondition } from '../core/access.ts';
import { ownerField } from '../organization/owners.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

const ASN_MIN = 1;
const ASN_MAX = 4294967295;
const description = { kind: 'string', maxLength: 200, default: '' } as const;

export const asnModel = defineModel({
  name: 'ipam.asn',
  table: 'asns',
  path: '/api/asns/',
  label: 'ASN',
  tenantScoped: true,
  displayField: 'asn_display',
  fields: {
    asn: { kind: 'integer', label: 'ASN', min: ASN_MIN, max: ASN_MAX, unique: true, help: '16- or 32-bit autonomous system number, 1 to 4294967295.' },
    asn_display: { kind: 'string', label: 'AS', readOnly: true, help: 'As NetBox writes it: AS65001, or AS4200000000 (64086.59904) with the asdot form.' },
    rir: { kind: 'fk', target: 'ipam.rir', label: 'RIR', onDelete: 'protect', help: 'The registry responsible for this number.' },
    role: { kind: 'fk', target: 'ipam.role', nullable: true, onDelete: 'set_null' },
    owner: ownerField,
    sites: { kind: 'm2m', target: 'organization.site', through: { table: 'asn_sites', from: 'asn_id', to: 'site_id' } },
    description,
    comments: { kind: 'text', default: '' },
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  searchFields: ['asn_display', 'description'],
  defaultOrdering: ['asn'],
});

/** ASNs of the tenant inside each range: one query for the page. */
const asnCountField: ComputedField = {
  label: 'ASNs',
  kind: 'number',
  schema: { type: 'integer', description: 'ASNs in the tenant between start and end.' },
  async load({ db, ctx, rows }) {
    const out = new Map<string, unknown>();
    if (rows.length === 0) return out;
    const ids = rows.map((r) => String(r.id));
    const { rows: counts } = await sql<{ id: string; n: number }>`SELECT r.id, (SELECT count(*)::int FROM asns a
        WHERE ${sameTenant('a', 'r')} AND a.asn BETWEEN r.start_asn AND r.end_asn AND ${scopeCondition(ctx, requireModel('ipam.asn'), 'a')}) AS n
      FROM asn_ranges r WHERE r.id = ANY(${ids}::uuid[])`.execute(db);
    for (const c of counts) out.set(c.id, c.n);
    return out;
  },
};

export const asnRangeModel = defineModel({
  name: 'ipam.asnrange',
  table: 'asn_ranges',
  path: '/api/asn-ranges/',
  label: 'ASN range',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true, naturalOrder: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    rir: { kind: 'fk', target: 'ipam.rir', label: 'RIR', onDelete: 'protect' },
    start: { kind: 'integer', column: 'start_asn', label: 'Start', min: ASN_MIN, max: ASN_MAX, help: 'First ASN of the range.' },
    end: { kind: 'integer', column: 'end_asn', label: 'End', min: ASN_MIN, max: ASN_MAX, help: 'Last ASN of the range, not below the start.' },
    owner: ownerField,
    description,
    tags: { kind: 'tags' },
    custom_fields: { kind: 'custom_fields' },
  },
  computed: { asn_count: asnCountField },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ input, existing }) {
      const start = Number('start' in input ? input.start : existing?.start_asn);
      const end = Number('end' in input ? input.end : existing?.end_asn);
      if (!Number.isFinite(start) || !Number.isFinite(end) || start <= end) return;
      throw fieldError('start' in input && !('end' in input) ? 'start' : 'end', `The range ends (${end}) before it starts (${start}): the end is at least the start.`);
    },
  },
});
