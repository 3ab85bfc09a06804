// NetBox's request bodies → Cairn's, for Cairn's own write path (same checks, hooks, change log, permissions and
// fence). Related objects by number, by `{"id": n}` or by `{"name": …}`/`{"slug": …}` become ids (looked up in the
// caller's fence, so another tenant's number is one that does not exist); choices by value or `{value, label}`;
// statuses by slug; generic relations (`assigned_object_type` + `assigned_object_id`) the Cairn field that holds
// that type. Fields NetBox has and Cairn does not are ignored, as NetBox ignores fields it does not know.
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import type { FieldDef } from '../core/registry.ts';
import { requireModel } from '../core/registry.ts';
import { ApiError, badRequest, type FieldErrors } from '../core/errors.ts';
import { cairnTypeName, dialectByNetboxName, renamedTypes, type DialectModel } from './dialect.ts';
import { idsBy, isNumid } from './numids.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One related object as NetBox accepts it → its id, or an error message. */
async function relatedId(db: Kysely<DB>, ctx: RequestContext, targetName: string, value: unknown): Promise<{ id: string | null } | { error: string }> {
  if (value === null) return { id: null };
  const target = requireModel(targetName);
  if (isNumid(value)) {
    const id = (await idsBy(db, ctx, target, 'numid', [value])).get(String(Number(value)));
    return id ? { id } : { error: `Related object not found using the provided numeric ID: ${String(value)}` };
  }
  if (isObject(value)) {
    if ('id' in value) return relatedId(db, ctx, targetName, value.id);
    const entry = Object.entries(value).find(([k]) => k === 'slug' || k === 'name' || (k in target.fields && target.fields[k]!.kind !== 'fk'));
    if (!entry) return { error: 'Related objects must be referenced by numeric ID or by dictionary of attributes.' };
    const column = entry[0] === 'slug' || entry[0] === 'name' ? entry[0] : entry[0];
    if (!(column in target.fields)) return { error: `Related object not found using the provided attributes: ${JSON.stringify(value)}` };
    const id = (await idsBy(db, ctx, target, column, [entry[1]])).get(String(entry[1]));
    return id ? { id } : { error: `Related object not found using the provided attributes: ${JSON.stringify(value)}` };
  }
  // A status by slug (Cairn's natural key), or a value Cairn's check will name.
  return { id: value as string };
}

/** A NetBox body for `entry`'s model → Cairn's body; `errors` collects what could not be resolved. */
export async function cairnBody(db: Kysely<DB>, ctx: RequestContext, entry: DialectModel, body: unknown, errors: FieldErrors, prefix = ''): Promise<Json> {
  if (!isObject(body)) throw badRequest({ non_field_errors: ['Invalid data. Expected a dictionary, but got ' + (Array.isArray(body) ? 'list' : typeof body) + '.'] });
  const { model } = entry;
  const out: Json = {};
  const objectTypes = new Set((model.netbox && model.netbox.objectTypes) || []);
  const fail = (key: string, message: string) => (errors[`${prefix}${key}`] ??= []).push(message);
  for (const [relation, types] of entry.generic) {
    const typeKey = `${relation}_type`;
    const idKey = `${relation}_id`;
    if (!(typeKey in body) && !(idKey in body)) continue;
    const type = body[typeKey];
    const cairnKey = typeof type === 'string' ? types.get(type) : undefined;
    if (type !== null && type !== undefined && !cairnKey) {
      fail(typeKey, `"${String(type)}" is not a valid choice; use one of ${[...types.keys()].join(', ')}.`);
      continue;
    }
    for (const key of types.values()) out[key] = null;
    if (cairnKey && body[idKey] !== null && body[idKey] !== undefined) {
      const found = await relatedId(db, ctx, model.fields[cairnKey]!.target!, body[idKey]);
      if ('error' in found) fail(idKey, found.error);
      else out[cairnKey] = found.id;
    }
  }
  for (const [nbKey, value] of Object.entries(body)) {
    const key = entry.in.get(nbKey);
    if (!key) continue;
    const field = model.fields[key]!;
    if (field.readOnly) continue;
    if (objectTypes.has(key)) {
      out[key] = renamedTypes(value, cairnTypeName);
      continue;
    }
    const converted = await fieldValue(db, ctx, field, value);
    if (converted && 'error' in converted) fail(nbKey, converted.error);
    else out[key] = converted.value;
  }
  return out;
}

async function fieldValue(db: Kysely<DB>, ctx: RequestContext, field: FieldDef, value: unknown): Promise<{ value: unknown } | { error: string }> {
  switch (field.kind) {
    case 'choice':
      return { value: isObject(value) && 'value' in value ? value.value : value };
    case 'fk': {
      if (field.target === 'extras.status' && isObject(value) && 'value' in value) return { value: value.value };
      const found = await relatedId(db, ctx, field.target!, value);
      return 'error' in found ? found : { value: found.id };
    }
    case 'm2m':
    case 'tags': {
      if (!Array.isArray(value)) return { value };
      const ids: unknown[] = [];
      for (const item of value) {
        const found = await relatedId(db, ctx, field.kind === 'tags' ? 'extras.tag' : field.target!, item);
        if ('error' in found) return found;
        ids.push(found.id);
      }
      return { value: ids };
    }
    case 'generic_m2m': {
      if (!Array.isArray(value)) return { value };
      const refs: unknown[] = [];
      for (const item of value) {
        if (!isObject(item)) return { error: 'Expected a list of {"object_type", "object_id"} objects.' };
        const target = typeof item.object_type === 'string' ? dialectByNetboxName(item.object_type) : undefined;
        if (!target) return { error: `"${String(item.object_type)}" is not a valid object_type.` };
        const found = await relatedId(db, ctx, target.model.name, item.object_id);
        if ('error' in found) return found;
        refs.push({ object_type: target.model.name, object_id: found.id });
      }
      return { value: refs };
    }
    default:
      return { value };
  }
}

/** Cairn's field errors named with NetBox's keys (`owner` → `tenant`), for the dialect's answers. */
export function netboxErrors(entry: DialectModel, err: unknown): unknown {
  if (!(err instanceof ApiError) || err.status !== 400) return err;
  const renamed: Json = {};
  let changed = false;
  for (const [key, messages] of Object.entries(err.body)) {
    const m = /^(\[\d+\]\.)?(.*)$/.exec(key)!;
    const nb = entry.out.get(m[2]!) ?? [...entry.generic].find(([, types]) => [...types.values()].includes(m[2]!))?.[0];
    const name = nb ? `${m[1] ?? ''}${nb}` : key;
    changed ||= name !== key;
    renamed[name] = messages;
  }
  return changed ? new ApiError(err.status, renamed, err.headers) : err;
}
