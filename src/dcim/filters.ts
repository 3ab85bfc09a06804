// List filters of DCIM models beyond their own fields: the ones bulk renders and the UI narrow devices with.
import { sql, type RawBuilder } from 'kysely';
import { addListFilters } from '../core/crud/read.ts';
import type { CustomFilter } from '../core/crud/list-query.ts';
import { isUuid } from '../core/ids.ts';
import { parseBoolean } from '../core/lookups.ts';
import { MAX_REGION_DEPTH } from '../organization/models.ts';

function parseBool(values: string[], name: string): boolean | { error: string } {
  return parseBoolean(values[0]) ?? { error: `Expected true or false for ${name}.` };
}

/** An id or a slug of `table`, as a condition on `r`. */
function idOrSlug(values: string[]): RawBuilder<unknown> {
  const ids = values.filter((v) => isUuid(v)).map((v) => v.toLowerCase());
  const slugs = values.filter((v) => !isUuid(v));
  return sql`(r.id = ANY(${ids}::uuid[]) OR r.slug = ANY(${slugs}::text[]))`;
}

/** Devices at a site in the region or any region below it (the outer query keeps the tenant fence). */
const deviceRegion: CustomFilter = (values, alias) => sql`${sql.ref(`${alias}.site_id`)} IN (
  WITH RECURSIVE down(id, depth) AS (
    SELECT r.id, 1 FROM regions r WHERE ${idOrSlug(values)}
    UNION ALL SELECT c.id, down.depth + 1 FROM regions c JOIN down ON c.parent_id = down.id WHERE down.depth < ${MAX_REGION_DEPTH}
  ) SELECT s.id FROM sites s WHERE s.region_id IN (SELECT id FROM down))`;

const deviceManufacturer: CustomFilter = (values, alias) =>
  sql`${sql.ref(`${alias}.device_type_id`)} IN (SELECT dt.id FROM device_types dt JOIN manufacturers r ON r.id = dt.manufacturer_id WHERE ${idOrSlug(values)})`;

const hasPrimaryIp: CustomFilter = (values, alias) => {
  const want = parseBool(values, 'has_primary_ip');
  if (typeof want !== 'boolean') return want;
  const set = sql`(${sql.ref(`${alias}.primary_ip4_id`)} IS NOT NULL OR ${sql.ref(`${alias}.primary_ip6_id`)} IS NOT NULL)`;
  return want ? set : sql`NOT ${set}`;
};

const cabledFilter = (type: string): CustomFilter => (values, alias) => {
  const want = parseBool(values, 'cabled');
  if (typeof want !== 'boolean') return want;
  const id = sql.ref(`${alias}.id`);
  const cabled = sql`EXISTS (SELECT 1 FROM cable_terminations ct WHERE ct.termination_type = ${type} AND ct.termination_id = ${id})`;
  return want ? cabled : sql`NOT ${cabled}`;
};

/** Ports on the same device (type) as the given port (a front port's rear-port picker). */
const sameOwnerAs =
  (table: string, owner: string): CustomFilter =>
  (values, alias) => {
    const ids = values.filter((v) => isUuid(v)).map((v) => v.toLowerCase());
    if (ids.length !== values.length) return { error: 'Expected an id.' };
    return sql`${sql.ref(`${alias}.${owner}`)} IN (SELECT s.${sql.ref(owner)} FROM ${sql.table(table)} s WHERE s.id = ANY(${ids}::uuid[]))`;
  };

addListFilters('dcim.rearport', { device_of: sameOwnerAs('front_ports', 'device_id'), cabled: cabledFilter('dcim.rearport') });
addListFilters('dcim.frontport', { cabled: cabledFilter('dcim.frontport') });
addListFilters('dcim.rearporttemplate', { device_type_of: sameOwnerAs('front_port_templates', 'device_type_id') });

addListFilters('dcim.device', { region: deviceRegion, manufacturer: deviceManufacturer, has_primary_ip: hasPrimaryIp });
/** Interfaces of the same device as the given one (a LAG or parent picker on an interface's form). */
const interfaceSibling: CustomFilter = (values, alias) => {
  const ids = values.filter((v) => isUuid(v)).map((v) => v.toLowerCase());
  if (ids.length !== values.length) return { error: 'Expected an interface id.' };
  return sql`${sql.ref(`${alias}.device_id`)} IN (SELECT s.device_id FROM interfaces s WHERE s.id = ANY(${ids}::uuid[])) AND NOT ${sql.ref(`${alias}.id`)} = ANY(${ids}::uuid[])`;
};

addListFilters('dcim.interface', { cabled: cabledFilter('dcim.interface'), sibling_of: interfaceSibling });
