// End-of-life on existing models: the `eol` value of platforms (and of the platform nested in devices and VMs),
// and the `?eol=` list filter on platforms, devices and VMs, computed in SQL.
import { sql, type RawBuilder } from 'kysely';
import { addComputedField, type ComputedField } from '../core/registry.ts';
import type { CustomFilter } from '../core/crud/list-query.ts';
import { addListFilters } from '../core/crud/read.ts';
import { addBriefExtension } from '../core/crud/serialize.ts';
import { platformModel } from '../dcim/models.ts';
import { eolFromSql, eolOfPlatforms, eolOfPlatformSql } from './service.ts';
import { enabledSql, warningDaysSql } from './settings.ts';
import { parseStatusList, statusSql, today, type EolStatus } from './status.ts';
import './sources.ts';
// The mapping object itself (its list and detail routes, its change-log type).
import './mapping-model.ts';

/** The `eol` payload's fields (service.ts EolPayload): on platforms, and as the answer of /api/eol/platforms/<id>/. */
export const eolPayloadProperties = {
  status: { type: 'string', enum: ['supported', 'ending', 'eol', 'unknown'] },
  source: { type: 'string' },
  product: { type: 'string' },
  cycle: { type: 'string' },
  release_date: { type: ['string', 'null'], format: 'date' },
  support_until: { type: ['string', 'null'], format: 'date' },
  eol_date: { type: ['string', 'null'], format: 'date' },
  eol: { type: ['boolean', 'null'] },
  lts: { type: 'boolean' },
  latest_version: { type: 'string' },
  synced_at: { type: ['string', 'null'], format: 'date-time' },
  missing: { type: 'boolean' },
};

const eolSchema = {
  type: ['object', 'null'],
  description: 'End-of-life status and the facts of the mapped catalog cycle; null while end-of-life data is off.',
  properties: eolPayloadProperties,
};

export const platformEolField: ComputedField = {
  label: 'End of life',
  kind: 'object',
  schema: eolSchema,
  load: ({ db, rows }) => eolOfPlatforms(db, rows.map((r) => String(r.id))),
  inline: { select: (_ctx, alias) => eolOfPlatformSql(sql.ref(`${alias}.id`)), value: (selected) => eolFromSql(selected) },
};

addComputedField(platformModel.name, 'eol', platformEolField);

// Read in the platform briefs' own statement: the settings and the platform's mapping, as eolOfPlatforms reads them.
addBriefExtension('dcim.platform', {
  select: (alias) => eolOfPlatformSql(sql.ref(`${alias}.id`)),
  apply: (brief, selected) => {
    brief.eol = eolFromSql(selected);
  },
});

/**
 * `<platform column> has a status in the list`, in SQL: supported/ending/eol are mappings whose status matches;
 * unknown is everything else (no platform, no mapping, or no answer). While the feature is off the condition is
 * true, so a valid filter is a no-op; the settings are read inside the statement (a filter is built
 * synchronously from the query string).
 */
export function eolCondition(platformColumn: RawBuilder<unknown>, statuses: EolStatus[]): RawBuilder<unknown> {
  const on = today();
  const status = statusSql('m', warningDaysSql, on);
  const known = statuses.filter((s) => s !== 'unknown');
  const parts: RawBuilder<unknown>[] = [];
  if (known.length) parts.push(sql`${platformColumn} IN (SELECT m.platform_id FROM eol_mappings m WHERE ${status} = ANY(${known}::text[]))`);
  if (statuses.includes('unknown')) {
    parts.push(sql`(${platformColumn} IS NULL OR ${platformColumn} NOT IN (SELECT m.platform_id FROM eol_mappings m WHERE ${status} <> 'unknown'))`);
  }
  return sql`(NOT ${enabledSql} OR ${sql.join(parts, sql` OR `)})`;
}

function eolFilter(column: string): CustomFilter {
  return (values, alias) => {
    const statuses = parseStatusList(values);
    if (!Array.isArray(statuses)) return statuses;
    return eolCondition(sql.ref(`${alias}.${column}`), statuses);
  };
}

addListFilters('dcim.platform', { eol: eolFilter('id') });
addListFilters('dcim.device', { eol: eolFilter('platform_id') });
addListFilters('virtualization.virtualmachine', { eol: eolFilter('platform_id') });
