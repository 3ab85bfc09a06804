// Cairn's API objects → NetBox's. The objects are Cairn's own serializer's (the same reads, fence and computed
// values); this turns them into NetBox's shapes: the integer id (the object's numid) in every id, NetBox's urls,
// choices and statuses as {value, label}, renamed fields, NetBox's generic relations, and brief/fields/omit.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { FieldDef, ModelDef } from '../core/registry.ts';
import { allModels, columnOf, getModel, isColumnField, requireModel } from '../core/registry.ts';
import type { RequestContext } from '../core/context.ts';
import { scopeCondition } from '../core/access.ts';
import { vocabularyOptions } from '../core/vocabularies.ts';
import { isUuid } from '../core/ids.ts';
import { addBriefExtension, type ApiObject } from '../core/crud/serialize.ts';
import { dialectModels, dialectOf, netboxTypeName, renamedTypes, type DialectModel } from './dialect.ts';
import { NETBOX_ENDPOINTS } from './endpoints.ts';

/** Where NetBox serves config templates (config-templates.ts serves Cairn's there). */
export const CONFIG_TEMPLATES_PATH = `/api/${NETBOX_ENDPOINTS.get('extras.configtemplate')!}/`;

type Json = Record<string, unknown>;

/** The options of a choice field, inline or from its vocabulary. */
export function choiceOptions(field: FieldDef): ReadonlyArray<{ value: string; label: string }> {
  if (field.choices) return field.choices;
  if (field.vocabulary) return vocabularyOptions(field.vocabulary);
  return [];
}

const labelCache = new WeakMap<FieldDef, Map<string, string>>();
function choiceValue(field: FieldDef, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  let labels = labelCache.get(field);
  if (!labels) labelCache.set(field, (labels = new Map(choiceOptions(field).map((o) => [o.value, o.label]))));
  return { value, label: labels.get(String(value)) ?? String(value) };
}

let modelsByPath: Map<string, ModelDef> | null = null;
const modelsByListUrl = new Map<string, ModelDef | null>();
/** The Cairn model an object's url points into (`…/api/sites/<uuid>/`), remembered by the url's list part. */
function modelOfUrl(url: string): ModelDef | undefined {
  // `<origin><list path><uuid>/`: the list part is all but the last 37 characters.
  const list = url.slice(0, -37);
  let model = modelsByListUrl.get(list);
  if (model === undefined) {
    if (!modelsByPath) modelsByPath = new Map(allModels().map((m) => [m.path, m]));
    const m = /^(?:[a-z]+:\/\/[^/]+)?(\/api\/.*\/)([0-9a-f-]{36})\/$/i.exec(url);
    model = (m && modelsByPath.get(m[1]!)) || null;
    if (modelsByListUrl.size < 10_000) modelsByListUrl.set(list, model);
  }
  return model ?? undefined;
}

export function netboxUrl(entry: DialectModel, numid: unknown, origin: string): string {
  return `${origin}${entry.path}${String(numid)}/`;
}

/**
 * The model of a related object in a Cairn answer: `{id: <uuid>, url}` by its url, or `{object_type, id: <uuid>}`
 * (a link peer, a trace's hop) by its type.
 */
function refModel(obj: Json): ModelDef | undefined {
  if (typeof obj.id !== 'string' || !isUuid(obj.id)) return undefined;
  if (typeof obj.url === 'string') return modelOfUrl(obj.url);
  return typeof obj.object_type === 'string' ? getModel(obj.object_type) : undefined;
}

/**
 * Every nested object of a Cairn answer: a related object `{id: <uuid>, url, …}`. Briefs read with their numbers
 * (briefNumids) give theirs to `known`; the others (computed values such as a device's primary_ip) are collected
 * by the model their url names, to be looked up unless a brief of the same object had its number.
 */
function collectRefs(value: unknown, walk: RefWalk, depth = 0): void {
  if (depth > 6 || value === null || typeof value !== 'object') return;
  const { refs: out, known, described: describedIds, seen } = walk;
  if (Array.isArray(value)) {
    for (const v of value) collectRefs(v, walk, depth + 1);
    return;
  }
  const obj = value as Json;
  const id = obj.id;
  // A page's rows share their related objects (every device of a site has the same site brief): each is walked once
  // (again only when met nearer the top, where more of it is within the depth walked). Only objects with an id are
  // shared; the others (a row's custom fields, a computed value's parts) are each met once.
  if (typeof id === 'string') {
    const before = seen.get(value);
    if (before !== undefined && before <= depth) return;
    seen.set(value, depth);
  }
  const hasNumid = 'numid' in obj && typeof id === 'string';
  if (hasNumid) {
    known.set(id, Number(obj.numid));
    // The brief's description (read from its column, as numidsOf would): the same object met again without its
    // number (a device's primary_ip beside its primary_ip4) needs no lookup.
    if (typeof obj.description === 'string') describedIds.set(id, obj.description);
  }
  // Looked up: a related object's number when its brief came without one, and its description when the model has
  // one and the brief came without it (many-to-many links and tags, computed values).
  // (An object whose number and description an earlier brief gave needs nothing: numidsOf would not ask for it.)
  const model = (hasNumid && 'description' in obj) || (typeof id === 'string' && known.has(id) && describedIds.has(id)) ? undefined : refModel(obj);
  if (model && model.numbered && (!hasNumid || describedBrief(model))) out.set(model, (out.get(model) ?? new Set()).add(id as string));
  for (const k in obj) {
    const v = obj[k];
    if (v !== null && typeof v === 'object') collectRefs(v, walk, depth + 1);
  }
}

/** What collectRefs found: objects to look up by model, the numbers and descriptions briefs came with. */
interface RefWalk {
  refs: Map<ModelDef, Set<string>>;
  known: Map<string, number>;
  described: Map<string, string>;
  seen: Map<object, number>;
}

function newWalk(): RefWalk {
  return { refs: new Map(), known: new Map(), described: new Map(), seen: new Map() };
}

/** What the dialect looked up of related objects by id: their numbers and (NetBox's briefs carry it) descriptions. */
interface Related {
  numids: Map<string, number>;
  descriptions: Map<string, string>;
  /**
   * The brief form of each related object already converted, by the Cairn object: the rows of a page share theirs,
   * so a page of 1,000 devices converts its few sites once, not 1,000 times (and makes that much less garbage).
   * Shared in the answer too: no caller changes a brief in place (config_template's url is set on a copy).
   */
  briefs: Map<object, Json>;
  /**
   * Every object the answer holds more than once (those briefs, a choice's or a status's {value, label}): never
   * changed once made, so its JSON text can be written once for a page (page-bytes.ts).
   */
  shared: Set<object>;
  /**
   * Whether the page was walked and what it lacked looked up (numidsOf). Not yet (shapePage's first try): numbers
   * and descriptions are taken from the briefs as they are met, and a brief that needs one not met yet stops the
   * writing (NEEDS_LOOKUP), to be done again after the walk.
   */
  lookedUp: boolean;
}

/** Thrown while writing a page not looked up (Related.lookedUp) at the first brief that needs a lookup. */
const NEEDS_LOOKUP = new Error('a related object needs its number or description looked up');

/** The column of a model's `description` field, when it has one stored as a column. */
function descriptionColumn(model: ModelDef): string | null {
  const field = model.fields.description;
  return field && isColumnField(field) ? columnOf('description', field) : null;
}

/** Whether the dialect's brief objects of `model` carry a description (a NetBox model with one; not a status). */
function describedBrief(model: ModelDef): boolean {
  return descriptionColumn(model) !== null && dialectOf(model.name) !== undefined;
}

/**
 * uuid → numid (and description) of related objects, one statement for all models (the ids came from fenced
 * reads); nothing is asked when every brief came with its number and description. `lookedUp` false: the page was
 * not walked (shapePage's first try), so what it lacks is not known yet (Related.lookedUp).
 */
async function numidsOf(db: Kysely<DB>, walk: RefWalk, lookedUp = true): Promise<Related> {
  const { refs, known, described } = walk;
  // Every description a brief came with serves the same object's other briefs (collectRefs does not ask for those).
  const descriptions = described;
  const briefs = new Map<object, Json>();
  const shared = new Set<object>();
  const parts = [...refs].flatMap(([model, all]) => {
    const column = descriptionColumn(model);
    // An object whose brief came with its number (and its description, where the model has one) elsewhere in the
    // answer is not asked for again: what the statement would read is what that brief read from the same columns.
    const ids: string[] = [];
    for (const id of all) {
      const description = described.get(id);
      if (!known.has(id) || (column && description === undefined)) ids.push(id);
    }
    const description = column ? sql`${sql.ref(column)}::text` : sql`NULL::text`;
    return ids.length ? [sql`SELECT id::text AS id, numid, ${description} AS description FROM ${sql.table(model.table)} WHERE id = ANY(${ids}::uuid[])`] : [];
  });
  if (!parts.length) return { numids: known, descriptions, briefs, shared, lookedUp };
  const { rows } = await sql<{ id: string; numid: string | number; description: string | null }>`${sql.join(parts, sql` UNION ALL `)}`.execute(db);
  for (const r of rows) {
    known.set(r.id, Number(r.numid));
    if (r.description !== null) descriptions.set(r.id, r.description);
  }
  return { numids: known, descriptions, briefs, shared, lookedUp };
}

let briefDescriptions = false;
/**
 * NetBox's brief objects carry the object's description where the model has one. Briefs read for the dialect (the
 * ones with their numbers) read it in their own statement, as a brief extension; Cairn's own briefs are unchanged.
 */
export function installBriefDescriptions(): void {
  if (briefDescriptions) return;
  briefDescriptions = true;
  for (const entry of dialectModels()) {
    const column = descriptionColumn(entry.model);
    if (!column) continue;
    addBriefExtension(entry.model.name, {
      select: (alias) => sql`${sql.ref(`${alias}.${column}`)}`,
      apply: (brief, selected) => {
        if ('numid' in brief) brief.description = selected ?? '';
      },
    });
  }
}

export interface ShapeOptions {
  origin: string;
  brief?: boolean;
  fields?: ReadonlySet<string> | null;
  omit?: ReadonlySet<string>;
}

/** A nested Cairn object in NetBox's brief form: integer id, NetBox url, NetBox's keys. */
function briefOf(obj: Json, related: Related, origin: string): Json {
  const { numids, descriptions, lookedUp } = related;
  const model = refModel(obj);
  if (model?.name === 'extras.status') return { value: obj.slug, label: obj.name };
  const id = String(obj.id);
  let numid: number | undefined;
  if ('numid' in obj) {
    numid = Number(obj.numid);
    // Not looked up: what this brief carries serves the same object's briefs met after it (as collectRefs does).
    if (!lookedUp) {
      numids.set(id, numid);
      if (typeof obj.description === 'string') descriptions.set(id, obj.description);
    }
  } else {
    numid = numids.get(id);
    if (numid === undefined && !lookedUp) throw NEEDS_LOOKUP;
  }
  const entry = model ? dialectOf(model.name) : undefined;
  const out: Json = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'numid') continue;
    if (k === 'id') out.id = numid ?? v;
    else if (k === 'url') continue;
    else if (k === 'object_id' && typeof v === 'string') {
      const known = numids.get(v);
      if (known === undefined && !lookedUp) throw NEEDS_LOOKUP;
      out.object_id = known ?? v;
    } else out[k] = convertNested(v, related, origin);
    if (k === 'id') out.url = entry && numid !== undefined ? netboxUrl(entry, numid, origin) : obj.url;
  }
  if (out.url === undefined) delete out.url;
  if (!('description' in out)) {
    if (descriptions.has(id)) out.description = descriptions.get(id);
    // (The walk would have found it on a brief further on, or looked it up.)
    else if (!lookedUp && model && describedBrief(model)) throw NEEDS_LOOKUP;
  }
  // (NetBox's brief objects have no display_url: only whole objects do.)
  return out;
}

function convertNested(value: unknown, related: Related, origin: string): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => convertNested(v, related, origin));
  const obj = value as Json;
  const done = related.briefs.get(obj);
  if (done) return done;
  if (refModel(obj)) {
    const brief = briefOf(obj, related, origin);
    related.briefs.set(obj, brief);
    related.shared.add(brief);
    return brief;
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(obj)) out[k] = convertNested(v, related, origin);
  return out;
}

/** Any answer of Cairn's (a trace, a list of briefs) with every related object in NetBox's brief form. */
export async function toNetboxTree(db: Kysely<DB>, value: unknown, origin: string): Promise<unknown> {
  const walk = newWalk();
  collectRefs(value, walk);
  return convertNested(value, await numidsOf(db, walk), origin);
}

/** The NetBox keys of a model's brief form (NetBox's `brief=1`): id, url, display, and its naming fields. */
const BRIEF_KEYS = new Set(['id', 'url', 'display', 'name', 'slug', 'model', 'vid', 'address', 'prefix', 'description', 'color', 'manufacturer', 'device', 'virtual_machine', 'cable', '_occupied', 'family']);

const served = new WeakMap<DialectModel, Set<string>>();
/** The NetBox keys a model's fields are answered under (write-only fields are only written under theirs). */
function servedKeys(entry: DialectModel): Set<string> {
  let keys = served.get(entry);
  if (!keys) served.set(entry, (keys = new Set([...entry.out].filter(([key]) => !entry.model.fields[key]!.writeOnly).map(([, nbKey]) => nbKey))));
  return keys;
}

interface FieldStep {
  key: string;
  nbKey: string;
  field: FieldDef;
  /** value: copied as is; nested: related objects converted; the others: NetBox's forms of a value. */
  mode: 'value' | 'types' | 'choice' | 'status' | 'nested';
}
const plans = new WeakMap<DialectModel, FieldStep[]>();
const NESTED_KINDS = new Set(['fk', 'm2m', 'generic_m2m', 'tags', 'json', 'custom_fields']);

/** How each served field of a model is written, worked out once per model rather than for every row. */
function fieldPlan(entry: DialectModel): FieldStep[] {
  let plan = plans.get(entry);
  if (plan) return plan;
  const objectTypes = new Set((entry.model.netbox && entry.model.netbox.objectTypes) || []);
  plan = [...entry.out].map(([key, nbKey]) => {
    const field = entry.model.fields[key]!;
    const mode: FieldStep['mode'] = objectTypes.has(key)
      ? 'types'
      : field.kind === 'choice'
        ? 'choice'
        : field.kind === 'fk' && field.target === 'extras.status'
          ? 'status'
          : NESTED_KINDS.has(field.kind)
            ? 'nested'
            : 'value';
    return { key, nbKey, field, mode };
  });
  plans.set(entry, plan);
  return plan;
}

/** Where a NetBox object's keys and values go, in order: an object (toNetbox) or JSON text (page-bytes.ts). */
export interface NetboxSink {
  set(key: string, value: unknown): void;
}

class ObjectSink implements NetboxSink {
  out: Json = {};
  set(key: string, value: unknown): void {
    this.out[key] = value;
  }
}

/** Cairn objects of `entry`'s model → NetBox objects. */
export async function toNetbox(db: Kysely<DB>, ctx: RequestContext, entry: DialectModel, objects: ApiObject[], opts: ShapeOptions): Promise<Json[]> {
  return netboxObjects(await netboxShaper(db, ctx, entry, objects, opts), objects, opts);
}

/** The NetBox objects a shaper writes for `objects` (narrowed as `opts` asks). */
export function netboxObjects(shaper: NetboxShaper, objects: ApiObject[], opts: ShapeOptions): Json[] {
  const sink = new ObjectSink();
  return objects.map((o) => {
    sink.out = {};
    shaper.write(o, sink);
    return narrowed(sink.out, opts);
  });
}

export interface NetboxShaper {
  write: (o: ApiObject, sink: NetboxSink) => void;
  shared: ReadonlySet<object>;
  distinctKeys: boolean;
  /** The related counts read for the objects (a second pass over the same objects reads them again from here). */
  counts: Map<string, Map<string, number>>;
}

/**
 * What writes a set of Cairn objects of `entry`'s model as NetBox objects, key by key, once their related objects'
 * numbers, descriptions and counts are read (one statement each at most, for the whole set). `shared`: the nested
 * objects it gives more than once (the same object wherever it is nested), never changed once given. `distinctKeys`:
 * no key is set twice for an object, so the keys of an object come in the order they are set (a writer of text can
 * write them as they come; one of objects keeps a key where it was first set).
 */
export async function netboxShaper(
  db: Kysely<DB>,
  ctx: RequestContext,
  entry: DialectModel,
  objects: ApiObject[],
  opts: ShapeOptions,
  pass: { walk: boolean; counts?: Map<string, Map<string, number>> } = { walk: true },
): Promise<NetboxShaper> {
  const walk = newWalk();
  const { refs } = walk;
  if (pass.walk) {
    for (const o of objects) {
      for (const k in o) {
        const v = o[k];
        if (k !== 'id' && k !== 'url' && v !== null && typeof v === 'object') collectRefs(v, walk);
      }
    }
  }
  // A device's binding ({own, resolved} in Cairn) is NetBox's config_template: its own template, by number.
  const binding = entry.model.computed.config_template && !entry.out.has('config_template') ? requireModel('extras.exporttemplate') : null;
  if (binding) {
    for (const o of objects) {
      const own = ownTemplate(o);
      if (own) refs.set(binding, (refs.get(binding) ?? new Set()).add(own.id));
    }
  }
  // (Without the walk, only the binding's templates are looked up here.)
  const related = await numidsOf(db, walk, pass.walk);
  const counts = pass.counts ?? (opts.brief || !objects.length ? new Map<string, Map<string, number>>() : await relatedCounts(db, ctx, entry, objects.map((o) => String(o.id))));
  const { model } = entry;
  const plan = fieldPlan(entry);
  // A page's rows share their choices' and statuses' {value, label} too: one object for each.
  const choices = new Map<FieldDef, Map<unknown, unknown>>();
  const choiceOf = (field: FieldDef, v: unknown): unknown => {
    if (v === null || v === undefined) return null;
    let byValue = choices.get(field);
    if (!byValue) choices.set(field, (byValue = new Map()));
    let out = byValue.get(v);
    if (out === undefined) {
      byValue.set(v, (out = choiceValue(field, v)));
      related.shared.add(out as object);
    }
    return out;
  };
  const statuses = new Map<object, Json>();
  const statusOf = (v: unknown): Json | null => {
    if (!v || typeof v !== 'object') return null;
    let out = statuses.get(v);
    if (!out) {
      statuses.set(v, (out = { value: (v as Json).slug, label: (v as Json).name }));
      related.shared.add(out);
    }
    return out;
  };
  // The computed values written under their own names, and the aliases' sources, worked out once for the set.
  const computedKeys = Object.keys(model.computed).filter(
    (key) =>
      !(binding && key === 'config_template') &&
      !(entry.generic.has(key) || (key.endsWith('_type') && entry.generic.has(key.slice(0, -5)))) &&
      // A field served under this name wins (a device's config_template is its own template, as in NetBox).
      !servedKeys(entry).has(key),
  );
  const aliases = [...entry.aliases].flatMap(([alias, key]) => (entry.out.has(key) ? [[alias, entry.out.get(key)!] as const] : []));
  const aliased = new Set(aliases.map(([, nbKey]) => nbKey));
  const keptForAlias = plan.map((step) => aliased.has(step.nbKey));
  const values = new Map<string, unknown>();
  const keys = [
    'id', 'url', 'display_url', 'display',
    // (Fields the objects do not carry are never set: a device's write-only config_template_id.)
    ...plan.filter((step) => objects.some((o) => step.key in o)).map((step) => step.nbKey),
    ...aliases.map(([alias]) => alias),
    ...[...entry.generic.keys()].flatMap((relation) => [`${relation}_type`, `${relation}_id`, relation]),
    ...(binding ? ['config_template'] : []),
    ...computedKeys.filter((key) => objects.some((o) => key in o)),
    ...counts.keys(),
    'created', 'last_updated',
  ];
  // (An integer-like key would come first in an object whatever its turn.)
  const distinctKeys = new Set(keys).size === keys.length && !keys.some((k) => /^\d+$/.test(k));

  const write = (o: ApiObject, out: NetboxSink): void => {
    values.clear();
    out.set('id', Number(o.numid));
    out.set('url', netboxUrl(entry, o.numid, opts.origin));
    out.set('display_url', `${opts.origin}/objects/${model.name}/${String(o.id)}`);
    out.set('display', o.display);
    for (let s = 0; s < plan.length; s++) {
      const step = plan[s]!;
      if (!(step.key in o)) continue;
      const v = o[step.key];
      let value: unknown;
      switch (step.mode) {
        case 'value':
          value = v;
          break;
        case 'types':
          value = renamedTypes(v, netboxTypeName);
          break;
        case 'choice':
          value = choiceOf(step.field, v);
          break;
        case 'status':
          value = statusOf(v);
          break;
        default:
          value = convertNested(v, related, opts.origin);
          // A role's, platform's or VM's config template is one of NetBox's config templates (config-templates.ts).
          if (step.field.target === 'extras.exporttemplate' && step.key === 'config_template') {
            const brief = value as Json | null;
            if (brief && typeof brief.id === 'number') value = { ...brief, url: `${opts.origin}${CONFIG_TEMPLATES_PATH}${brief.id}/` };
          }
      }
      out.set(step.nbKey, value);
      if (keptForAlias[s]) values.set(step.nbKey, value);
    }
    for (const [alias, nbKey] of aliases) out.set(alias, values.get(nbKey));
    for (const [relation, types] of entry.generic) {
      let set: [string, Json] | null = null;
      for (const [type, key] of types) {
        const v = o[key];
        if (v && typeof v === 'object') set = [type, v as Json];
      }
      out.set(`${relation}_type`, set ? set[0] : null);
      const brief = set ? (convertNested(set[1], related, opts.origin) as Json) : null;
      out.set(`${relation}_id`, brief ? brief.id : null);
      out.set(relation, brief);
    }
    if (binding) {
      const own = ownTemplate(o);
      const numid = own ? related.numids.get(own.id) : undefined;
      out.set(
        'config_template',
        own && numid !== undefined ? { id: numid, url: `${opts.origin}${CONFIG_TEMPLATES_PATH}${numid}/`, display: own.name, name: own.name, description: related.descriptions.get(own.id) ?? '' } : null,
      );
    }
    for (const key of computedKeys) {
      if (!(key in o)) continue;
      const computed = model.computed[key]!;
      // A computed choice (an address's family) is {value, label} as NetBox writes choices; the value keeps its type.
      if (computed.kind === 'choice' && computed.options && o[key] !== null && o[key] !== undefined) {
        out.set(key, { value: o[key], label: computed.options.find((c) => c.value === String(o[key]))?.label ?? String(o[key]) });
      } else out.set(key, convertNested(o[key], related, opts.origin));
    }
    for (const [name, byId] of counts) out.set(name, byId.get(String(o.id)) ?? 0);
    if ('created' in o) out.set('created', o.created);
    if ('last_updated' in o) out.set('last_updated', o.last_updated);
  };
  return { write, shared: related.shared, distinctKeys, counts };
}

/**
 * A page written by `render` from a shaper, first without walking it for related objects to look up: a list page's
 * briefs carry their numbers and descriptions (read with them), so most pages need none, and the walk was a tenth
 * of the dialect's cost on a device page. The first brief that needs a lookup stops that try (early: on the first
 * row of a page that needs one), and the page is written again after the walk: the same bytes either way.
 */
export async function shapePage<T>(db: Kysely<DB>, ctx: RequestContext, entry: DialectModel, objects: ApiObject[], opts: ShapeOptions, render: (shaper: NetboxShaper) => T): Promise<T> {
  const optimistic = await netboxShaper(db, ctx, entry, objects, opts, { walk: false });
  try {
    return render(optimistic);
  } catch (err) {
    if (err !== NEEDS_LOOKUP) throw err;
  }
  return render(await netboxShaper(db, ctx, entry, objects, opts, { walk: true, counts: optimistic.counts }));
}

/** The template bound to the object itself (a device's computed `config_template.own`: {id, name}), or null. */
function ownTemplate(o: ApiObject): { id: string; name: string } | null {
  const binding = o.config_template as { own?: { id?: unknown; name?: unknown } | null } | null | undefined;
  const own = binding && typeof binding === 'object' ? binding.own : null;
  return own && typeof own.id === 'string' && isUuid(own.id) ? { id: own.id, name: String(own.name) } : null;
}

/** NetBox's `<model>_count` values of a page's objects (the declaration's counts): one statement, in the fence. */
async function relatedCounts(db: Kysely<DB>, ctx: RequestContext, entry: DialectModel, ids: string[]): Promise<Map<string, Map<string, number>>> {
  const declared = Object.entries((entry.model.netbox && entry.model.netbox.counts) || {});
  const out = new Map(declared.map(([name]) => [name, new Map<string, number>()]));
  const parts = declared.flatMap(([name, ref]) => {
    const dot = ref.lastIndexOf('.');
    const model = getModel(ref.slice(0, dot));
    const field = model?.fields[ref.slice(dot + 1)];
    if (!model || !field) return [];
    const column = sql.ref(`c.${columnOf(ref.slice(dot + 1), field)}`);
    return [sql`SELECT ${name}::text AS name, ${column}::text AS id, count(*)::int AS n FROM ${sql.table(model.table)} c
      WHERE ${column} = ANY(${ids}::uuid[]) AND ${scopeCondition(ctx, model, 'c')} GROUP BY ${column}`];
  });
  if (!parts.length) return out;
  const { rows } = await sql<{ name: string; id: string; n: number }>`${sql.join(parts, sql` UNION ALL `)}`.execute(db);
  for (const r of rows) out.get(r.name)!.set(r.id, r.n);
  return out;
}

/** An answer narrowed as asked: `fields=`, else `brief=1` (to `briefKeys`), else `omit=`. */
export function narrowed(obj: Json, opts: ShapeOptions, briefKeys: ReadonlySet<string> = BRIEF_KEYS): Json {
  if (opts.fields?.size) return Object.fromEntries(Object.entries(obj).filter(([k]) => opts.fields!.has(k)));
  if (opts.brief) return Object.fromEntries(Object.entries(obj).filter(([k]) => briefKeys.has(k)));
  if (opts.omit?.size) return Object.fromEntries(Object.entries(obj).filter(([k]) => !opts.omit!.has(k)));
  return obj;
}
