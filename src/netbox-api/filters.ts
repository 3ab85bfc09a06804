// NetBox's list query → Cairn's list query. Names are mapped through the model's dialect entry (`tenant` → `owner`),
// NetBox's `<relation>_id=<number>` becomes Cairn's `<relation>=<id>` (numbers looked up in the caller's fence),
// `id` is the numid, `limit=0` is a whole page of MAX_PAGE_SIZE; parameters NetBox's clients send that mean nothing
// here (brief, fields, omit, exclude, format) are taken out, and unknown filters are ignored, as NetBox does.
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { requireModel, type ModelDef } from '../core/registry.ts';
import { badRequest, type FieldErrors } from '../core/errors.ts';
import { filterableField, orderableField, type QueryValues } from '../core/crud/list-query.ts';
import { listFiltersOf } from '../core/crud/read.ts';
import { dialectModels, type DialectModel } from './dialect.ts';
import { idsBy, isNumid } from './numids.ts';

export const MAX_PAGE_SIZE = 1000;
const LOOKUPS = new Set(['n', 'ic', 'nic', 'isw', 'iew', 'ie', 'gt', 'gte', 'lt', 'lte', 'in', 'empty', 'isnull', 'nie', 'niew', 'nisw']);
/** Parameters of the answer's shape, not of the rows. */
export const SHAPE_PARAMS = new Set(['brief', 'fields', 'omit', 'exclude', 'format', 'export']);

function valuesOf(raw: string | string[] | undefined): string[] {
  return raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
}

export interface ShapeQuery {
  brief: boolean;
  fields: Set<string> | null;
  omit: Set<string>;
}

export function shapeOf(query: QueryValues): ShapeQuery {
  const list = (name: string) => valuesOf(query[name]).flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
  const brief = valuesOf(query.brief).some((v) => ['1', 'true', 'True'].includes(v));
  const fields = list('fields');
  return { brief, fields: fields.length ? new Set(fields) : null, omit: new Set([...list('omit'), ...list('exclude')]) };
}

/** The model a filter's prefix names by NetBox's model name without its app (`virtual_machine` → virtualmachine). */
function modelNamed(prefix: string): ModelDef | undefined {
  const short = prefix.replace(/_/g, '');
  return dialectModels().find((e) => e.name.split('.')[1] === short)?.model;
}

/** The Cairn query of a NetBox list request on `entry`'s model. */
export async function cairnQuery(db: Kysely<DB>, ctx: RequestContext, entry: DialectModel, query: QueryValues): Promise<QueryValues> {
  const { model } = entry;
  const out: QueryValues = {};
  const errors: FieldErrors = {};
  const custom = listFiltersOf(model.name);
  const aliases = (model.netbox && model.netbox.filters) || {};
  const add = (key: string, values: string[]) => {
    const prior = valuesOf(out[key]);
    out[key] = [...prior, ...values];
  };
  for (const [param, raw] of Object.entries(query)) {
    const values = valuesOf(raw);
    if (SHAPE_PARAMS.has(param) || param === 'offset' || param === 'q' || param.startsWith('cf_')) {
      if (!SHAPE_PARAMS.has(param)) add(param, values);
      continue;
    }
    if (param === 'limit') {
      const n = Number(values[0]);
      add('limit', [String(values[0] === '0' || !Number.isFinite(n) || n > MAX_PAGE_SIZE ? MAX_PAGE_SIZE : values[0])]);
      continue;
    }
    if (param === 'ordering') {
      const items = values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
      const mapped = items.flatMap((item) => {
        const desc = item.startsWith('-');
        const key = desc ? item.slice(1) : item;
        const cairnKey = key === 'id' ? 'numid' : (entry.in.get(key) ?? key);
        return orderableField(model, cairnKey) ? [`${desc ? '-' : ''}${cairnKey}`] : [];
      });
      if (mapped.length) add('ordering', [mapped.join(',')]);
      continue;
    }
    if (param === 'tag' || param === 'tag_id') {
      if (param === 'tag') add('tag', values);
      else {
        const ids = await idsBy(db, ctx, requireModel('extras.tag'), 'numid', values.filter(isNumid));
        add('tag', values.map((v) => ids.get(v) ?? '00000000-0000-0000-0000-000000000000'));
      }
      continue;
    }
    if (aliases[param]) {
      add(aliases[param]!, values);
      continue;
    }
    if (custom[param]) {
      // A filter of Cairn's by another model's id (`device_id` on addresses): NetBox clients send that model's number.
      const target = param.endsWith('_id') ? modelNamed(param.slice(0, -3)) : undefined;
      if (target && values.every(isNumid)) {
        const ids = await idsBy(db, ctx, target, 'numid', values);
        add(param, values.map((v) => ids.get(String(Number(v))) ?? '00000000-0000-0000-0000-000000000000'));
      } else add(param, values);
      continue;
    }
    const sep = param.lastIndexOf('__');
    const lookup = sep > 0 && LOOKUPS.has(param.slice(sep + 2)) ? param.slice(sep + 2) : '';
    const base = lookup ? param.slice(0, sep) : param;
    const suffix = lookup ? `__${lookup}` : '';
    if (base === 'id') {
      add(`numid${suffix}`, values);
      continue;
    }
    const byId = base.endsWith('_id') && entry.in.has(base.slice(0, -3)) ? base.slice(0, -3) : null;
    const cairnKey = entry.in.get(byId ?? base);
    const field = cairnKey ? filterableField(model, cairnKey) : undefined;
    if (!cairnKey || !field) continue;
    const relation = field.kind === 'fk' || field.kind === 'm2m';
    if (relation && field.target === 'extras.status') {
      add(`${cairnKey}${suffix}`, values);
      continue;
    }
    if (relation && (byId || values.every((v) => isNumid(v) || v === 'null'))) {
      const wanted = lookup === 'in' ? values.flatMap((v) => v.split(',')) : values;
      const numbers = wanted.filter(isNumid);
      const ids = await idsBy(db, ctx, requireModel(field.target!), 'numid', numbers);
      const missing = numbers.filter((n) => !ids.has(String(Number(n))));
      if (missing.length) {
        errors[param] = [`Select a valid choice. ${missing[0]} is not one of the available choices.`];
        continue;
      }
      const mapped = wanted.map((v) => (v === 'null' ? 'null' : ids.get(String(Number(v)))!));
      add(`${cairnKey}${lookup === 'in' ? '' : suffix}`, mapped);
      continue;
    }
    add(`${cairnKey}${suffix}`, values);
  }
  if (Object.keys(errors).length) throw badRequest(errors);
  return out;
}
