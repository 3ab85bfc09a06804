// The one model definition. Each model is declared once with defineModel(); routes, schemas, filters,
// change-log snapshots, the self-describing catalogs and the template object types all derive from it.
import type { Kysely, RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import { noteRegistration } from './provenance.ts';
import type { RequestContext } from './context.ts';

export type FieldKind =
  | 'string' // short text (varchar)
  | 'text' // long text
  | 'slug'
  | 'integer'
  | 'decimal'
  | 'boolean'
  | 'date'
  | 'datetime'
  | 'json'
  | 'choice'
  | 'color'
  | 'inet'
  | 'cidr'
  | 'url'
  | 'uuid'
  | 'fk'
  | 'string_list'
  | 'integer_list'
  | 'm2m'
  | 'generic_m2m' // a list of rows of several models (a cable's ends: interfaces, front ports, rear ports)
  | 'tags'
  | 'custom_fields';

export interface ChoiceOption {
  value: string;
  label: string;
  group?: string;
}

export interface FieldDef {
  kind: FieldKind;
  label?: string;
  /** Database column; defaults to the key, or `<key>_id` for a foreign key. */
  column?: string;
  nullable?: boolean;
  /** Required on create. Defaults to true for non-nullable fields without a default (booleans excepted). */
  required?: boolean;
  default?: unknown;
  /** Set by the server only; shown in answers, refused in requests. */
  readOnly?: boolean;
  /** Accepted in requests, never shown in answers. */
  writeOnly?: boolean;
  /** Encrypted at rest, write-only, masked in the change log, unreadable from templates. */
  secret?: boolean;
  maxLength?: number;
  min?: number;
  max?: number;
  pattern?: RegExp;
  patternMessage?: string;
  /**
   * Text fields: turns an accepted spelling into the stored one (a MAC address in any notation into
   * AA:BB:CC:00:11:22), or null when the text is not valid (answered with patternMessage). Applied to inputs and to
   * exact list filters alike, so a filter matches whatever notation it is written in.
   */
  normalize?: (value: string) => string | null;
  /** Inline options for a `choice` field, or the name of a vocabulary of /api/dcim/choices/. */
  choices?: readonly ChoiceOption[];
  vocabulary?: string;
  /** fk / m2m: the target model's name, e.g. `dcim.site`. */
  target?: string;
  /**
   * fk: the name of the reverse list a template reads on the target (`chassis.members`); else the list path of the
   * model holding the key (`device.interfaces`).
   */
  relatedName?: string;
  onDelete?: 'cascade' | 'protect' | 'set_null';
  /** m2m: the join table and its two columns. */
  through?: { table: string; from: string; to: string };
  /**
   * generic_m2m: the join table's column naming each row's model (`to` holds its id), the models it accepts (a
   * bare id means `target`), and the column values that mark this field's rows (the cable end), so two fields
   * can share one table and one unique key. Taking a row another owner holds is refused by that key.
   */
  generic?: { typeColumn: string; targets: readonly string[]; fixed: Record<string, string> };
  /**
   * Order by this text field naturally: runs of digits as numbers, so `eth2` sorts before `eth10`. The table needs
   * the stored key `<column>_natural` (GENERATED ALWAYS AS (cairn_natural_key(<column>)) STORED, see migration 0024).
   */
  naturalOrder?: boolean;
  /** Unique within the tenant (or globally for models without a tenant). */
  unique?: boolean;
  /** json fields that must hold a JSON object. */
  jsonObject?: boolean;
  help?: string;
  /**
   * fk and m2m: list filters a form's picker adds when offering rows (`$self` is the id of the object being edited, so
   * a device's primary IPv4 is picked among its own IPv4 addresses; `$field:<key>` the id the form's `<key>`
   * picker holds, so a device's rack is picked among the racks of the site chosen in the form).
   */
  pickerFilters?: Record<string, string>;
  /** integer: a form's dedicated editor (`rack_unit`: the free units of the rack the form's `rack` field holds). */
  widget?: 'rack_unit';
  /** Turns an accepted input value into the stored one (e.g. hashing a password). */
  transform?: (value: unknown) => Promise<unknown>;
}

/**
 * A read-only value derived from other rows (a device's `primary_ip`, an interface's `link_peer`), loaded for
 * a whole page at once so a list never costs a query per row.
 */
export interface ComputedField {
  label?: string;
  /** The kind the catalogs report (e.g. 'ip', 'object', 'number'); shape documented in `schema`. */
  kind: string;
  /** For kind 'choice': each value's label, so the UI shows "IPv4" rather than 4. */
  options?: ReadonlyArray<{ value: string; label: string }>;
  /** For kind 'object': the model of the object, so the UI links it to its page. */
  related?: string;
  schema: Record<string, unknown>;
  load(args: { db: Kysely<DB>; ctx: RequestContext; rows: Record<string, unknown>[]; origin: string }): Promise<Map<string, unknown>>;
  /**
   * Optionally, the same value read beside each row: one select-list expression over the row's alias (a scalar
   * subquery, fenced like `load`; its own tables take aliases of a letter or two, never the row's), and the value
   * built from what it returns. List pages, single objects and export renders read it instead of a query of its own.
   */
  inline?: { select(ctx: RequestContext, alias: string): RawBuilder<unknown>; value(selected: unknown, origin: string): unknown };
}

export interface ModelHooks {
  /** Domain validation beyond field types; throw ApiError. `existing` is the stored row on update. */
  validate?(args: HookArgs & { input: Record<string, unknown>; existing: Record<string, unknown> | null }): Promise<void>;
  afterCreate?(args: HookArgs & { row: Record<string, unknown> }): Promise<void>;
  /**
   * After one row changed. Bulk updates call it for every row too, with `inBulk: true`: a hook that queries per
   * row returns early then and does its work once for all rows in afterUpdateMany, so a bulk call keeps a
   * constant number of queries.
   */
  afterUpdate?(args: HookArgs & { before: Record<string, unknown>; row: Record<string, unknown>; inBulk?: boolean }): Promise<void>;
  /** Bulk updates: called once with every changed row, after afterUpdate ran for each. */
  afterUpdateMany?(args: HookArgs & { rows: Array<{ before: Record<string, unknown>; row: Record<string, unknown> }> }): Promise<void>;
  beforeDelete?(args: HookArgs & { row: Record<string, unknown> }): Promise<void>;
  /**
   * The set form of beforeDelete, used by bulk deletes instead of calling beforeDelete once per row, so a bulk
   * call keeps a constant number of queries. It cannot skip single rows: an ApiError refuses the whole call.
   */
  beforeDeleteMany?(args: HookArgs & { rows: Record<string, unknown>[] }): Promise<void>;
  /**
   * After the rows are gone (single and bulk deletes alike, once per call with every deleted row): for state
   * derived from what is left, such as a prefix's utilisation.
   */
  afterDelete?(args: HookArgs & { rows: Record<string, unknown>[] }): Promise<void>;
}

export interface HookArgs {
  tx: Kysely<DB>;
  ctx: RequestContext;
  model: ModelDef;
}

/**
 * How a model appears in the NetBox dialect (src/netbox-api/): NetBox's REST API served over the same registry. A
 * model whose name is one of NetBox's joins it by itself; only what differs is declared here.
 */
export interface NetboxDeclaration {
  /** NetBox's `app.model` when Cairn names the model otherwise (`organization.site` is NetBox's `dcim.site`). */
  name?: string;
  /** Cairn field key → NetBox's key, where they differ (`owner` is NetBox's `tenant`). */
  fields?: Record<string, string>;
  /**
   * NetBox's generic relations written over several of Cairn's foreign keys: `assigned_object` (with
   * `assigned_object_type` and `assigned_object_id`) over `assigned_interface` and `assigned_vm_interface`. Each
   * NetBox object type names the field that holds it.
   */
  generic?: Record<string, Record<string, string>>;
  /** NetBox's list filter name → the Cairn filter it means, where they differ (`assigned_to_interface` → `assigned`). */
  filters?: Record<string, string>;
  /**
   * Older NetBox names of a field, still answered and accepted beside the current one (NetBox 3.6–3.7 wrote a
   * device's `role` as `device_role` too; the netbox.netbox collection 3.x still sends it): alias → Cairn field key.
   */
  aliases?: Record<string, string>;
  /** Fields holding model names (`app.model`, one or a list): written and answered with NetBox's names. */
  objectTypes?: string[];
  /** NetBox's counts of related objects: count name → `<model>.<fk field>` (`prefix_count` → `ipam.prefix.site`). */
  counts?: Record<string, string>;
}

export interface ModelDef {
  /** `app.model`, e.g. `extras.tag`. */
  name: string;
  table: string;
  /** List path, e.g. `/api/tags/`. */
  path: string;
  label: string;
  labelPlural: string;
  fields: Record<string, FieldDef>;
  /** The table has `created` and `last_updated` (shown after the fields). */
  timestamps: boolean;
  /** Derived read-only values shown after the fields. */
  computed: Record<string, ComputedField>;
  tenantScoped: boolean;
  /** Permission prefix: grants are `<permission>.<action>`. Defaults to the model part of `name`. */
  permission: string;
  /** Every action needs `users.manage` (deployment administration). */
  adminOnly: boolean;
  /** Field shown as the row's display text. */
  displayField: string;
  /**
   * A field written in parentheses after the display field, as NetBox writes a VLAN (`servers (10)`): for objects
   * whose name repeats across their scope and whose number is how engineers call them. Brief objects carry it too.
   */
  displayQualifier?: string;
  /**
   * Relations whose object a search hit is shown in, the first one set (`servers (10)` in `ams1 VLANs`): for objects
   * whose display repeats across sites but whose display parent would make every mention of them long.
   */
  searchContext?: string[];
  /** The table has a per-tenant `numid` (every model the core creates rows of; not the change log). */
  numbered: boolean;
  /**
   * Relations whose object the display text starts with, the first one set (`ams1-leaf1 › Ethernet1`): for
   * objects whose own name repeats from parent to parent (interfaces, ports, sessions). Followed through the
   * parent's own display parent. A model whose displayField is 'id' is shown as its parent alone.
   */
  displayParent?: string[];
  searchFields: string[];
  defaultOrdering: string[];
  /**
   * Fields the UI does not offer as list columns or Overview rows (drawn inside another column, or a code nobody
   * reads); the list-fields catalog still describes them (other_fields) for records that name them.
   */
  listColumnsExclude: string[];
  /** Which generic routes exist. */
  operations: { list: boolean; create: boolean; update: boolean; delete: boolean };
  hooks: ModelHooks;
  /** Rows an admin-free caller may read of a global model (e.g. only their own tenants). */
  globalScope?: (ctx: RequestContext) => { column: string; values: string[] } | null;
  /** Replaces the grant check, for models every signed-in user manages for themselves (tokens). */
  access?: (ctx: RequestContext, action: string) => boolean;
  /** Values the server sets on create (owner, author). */
  createDefaults?: (ctx: RequestContext) => Record<string, unknown>;
  /** The NetBox dialect's view of the model; `false`: no NetBox twin, even where the name is one of NetBox's. */
  netbox?: NetboxDeclaration | false;
  /**
   * How bulk writes (demo data's and `cairn import netbox`'s loads, the import's updates: core/crud/row-rules.ts)
   * honour the model's own validate hook without running it row by row. Left out, they run it for every row they
   * write, as a single write would.
   */
  bulkLoadValidation?: string;
}

export type ModelInput = Omit<
  ModelDef,
  'permission' | 'adminOnly' | 'searchFields' | 'defaultOrdering' | 'listColumnsExclude' | 'operations' | 'hooks' | 'labelPlural' | 'displayField' | 'computed' | 'timestamps' | 'numbered'
> &
  Partial<Pick<ModelDef, 'permission' | 'adminOnly' | 'searchFields' | 'defaultOrdering' | 'listColumnsExclude' | 'hooks' | 'labelPlural' | 'displayField' | 'computed' | 'timestamps' | 'numbered'>> & {
    operations?: Partial<ModelDef['operations']>;
  };

const models = new Map<string, ModelDef>();
const RESERVED_KEYS = new Set(['id', 'numid', 'url', 'display', 'created', 'last_updated']);

/** A copy of `entries` without a prototype: indexing it with any string finds only its own keys. */
export function lookupTable<T>(entries: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, entries);
}

export function defineModel(input: ModelInput): ModelDef {
  if (models.has(input.name)) throw new Error(`Model ${input.name} is defined twice.`);
  const def: ModelDef = {
    permission: input.name.split('.')[1]!,
    adminOnly: false,
    searchFields: [],
    defaultOrdering: [],
    listColumnsExclude: [],
    hooks: {},
    timestamps: true,
    numbered: true,
    labelPlural: `${input.label}s`,
    displayField: 'name' in input.fields ? 'name' : 'id',
    ...input,
    // Looked up by names a client sends (filters, ordering, body keys): without a prototype, `__proto__` or
    // `constructor` is no field rather than Object's own members.
    fields: lookupTable(input.fields),
    computed: lookupTable(input.computed ?? {}),
    operations: { list: true, create: true, update: true, delete: true, ...input.operations },
  };
  for (const [key, field] of Object.entries(def.fields)) {
    // These keys belong to every answer (the object's own API url, its display text…): a field may not shadow them.
    if (RESERVED_KEYS.has(key) || key in def.computed) throw new Error(`${def.name}.${key}: "${key}" is reserved for every API object; name the field otherwise.`);
    if ((field.kind === 'fk' || field.kind === 'm2m' || field.kind === 'generic_m2m') && !field.target) throw new Error(`${def.name}.${key}: a relation needs a target.`);
    if (field.kind === 'm2m' && !field.through) throw new Error(`${def.name}.${key}: m2m needs a join table.`);
    if (field.kind === 'generic_m2m' && (!field.through || !field.generic)) throw new Error(`${def.name}.${key}: generic_m2m needs a join table and its type column.`);
  }
  if (def.displayQualifier && !def.fields[def.displayQualifier]) throw new Error(`${def.name}: displayQualifier "${def.displayQualifier}" is not a field.`);
  for (const key of def.searchContext ?? []) if (def.fields[key]?.kind !== 'fk') throw new Error(`${def.name}: searchContext "${key}" is not a relation (fk).`);
  models.set(def.name, def);
  if (def.hooks.validate) addValidateRule(def.name, def.hooks.validate, def.bulkLoadValidation);
  noteRegistration(def.name, 'definition', Object.keys(def.fields));
  if (Object.keys(def.hooks).length) noteRegistration(def.name, 'hooks', Object.keys(def.hooks));
  if (Object.keys(def.computed).length) noteRegistration(def.name, 'computed', Object.keys(def.computed));
  return def;
}

export function getModel(name: string): ModelDef | undefined {
  return models.get(name);
}

export function requireModel(name: string): ModelDef {
  const m = models.get(name);
  if (!m) throw new Error(`Unknown model ${name}.`);
  return m;
}

export function allModels(): ModelDef[] {
  return [...models.values()];
}

/** Resolve `dcim.device`, `device`, or a list path to a model. */
export function findModel(ref: string): ModelDef | undefined {
  if (models.has(ref)) return models.get(ref);
  for (const m of models.values()) {
    if (m.permission === ref || m.name.split('.')[1] === ref || m.path === ref) return m;
  }
  return undefined;
}

export function columnOf(key: string, field: FieldDef): string {
  return field.column ?? (field.kind === 'fk' ? `${key}_id` : key);
}

/** The column a model's display text is read from (its display field's column, or the field's name as a column). */
export function displayColumn(model: ModelDef): string {
  const field = model.fields[model.displayField];
  return field ? columnOf(model.displayField, field) : model.displayField;
}

/** The columns a model's display text is made of: the display column, then the qualifier's where it has one. */
export function displayColumns(model: ModelDef): string[] {
  const qualifier = model.displayQualifier ? model.fields[model.displayQualifier] : undefined;
  return qualifier ? [displayColumn(model), columnOf(model.displayQualifier!, qualifier)] : [displayColumn(model)];
}

/** Words a network engineer writes in capitals, as a label derived from a field's key should. */
const ACRONYMS: Readonly<Record<string, string>> = { ip: 'IP', id: 'ID', ipv4: 'IPv4', ipv6: 'IPv6', vlan: 'VLAN', vrf: 'VRF', mac: 'MAC', mtu: 'MTU', dns: 'DNS', url: 'URL', asn: 'ASN', vm: 'VM', nat: 'NAT' };

export function fieldLabel(key: string, field: FieldDef | undefined): string {
  if (field?.label) return field.label;
  const words = key.split('_').map((w) => ACRONYMS[w] ?? w).join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Fields stored as a column of the model's own table. */
export function isColumnField(field: FieldDef): boolean {
  return field.kind !== 'm2m' && field.kind !== 'generic_m2m' && field.kind !== 'tags';
}

export function isRequired(field: FieldDef): boolean {
  if (field.readOnly) return false;
  if (field.required !== undefined) return field.required;
  return !field.nullable && field.default === undefined && field.kind !== 'boolean' && field.kind !== 'tags' && field.kind !== 'm2m' && field.kind !== 'generic_m2m' && field.kind !== 'custom_fields';
}

type ListenerHook = 'validate' | 'afterCreate' | 'afterUpdate' | 'afterUpdateMany' | 'beforeDelete' | 'beforeDeleteMany' | 'afterDelete';

/**
 * Adds a listener to another domain's model hook, after the hook the model declared (and after listeners added
 * before): monitoring reacts to a device's primary IP changing without dcim importing monitoring. With
 * `{ first: true }` it runs before them instead, for a rule the model's own hooks rely on (the status a created
 * row defaults to, which a prefix's utilisation reads).
 */
export function addModelHook<K extends ListenerHook>(
  modelName: string,
  kind: K,
  listener: NonNullable<ModelHooks[K]>,
  options: { first?: boolean; bulkLoad?: K extends 'validate' ? string : never } = {},
): void {
  const model = requireModel(modelName);
  noteRegistration(modelName, options.first ? "hooks ahead of the model's" : 'hooks', [kind]);
  if (kind === 'validate') addValidateRule(modelName, listener as NonNullable<ModelHooks['validate']>, options.bulkLoad);
  const previous = model.hooks[kind] as ((args: never) => Promise<void>) | undefined;
  const next = listener as (args: never) => Promise<void>;
  const [one, two] = options.first ? [next, previous] : [previous, next];
  const chained = async (args: never): Promise<void> => {
    if (one) await one(args);
    if (two) await two(args);
  };
  model.hooks[kind] = chained as ModelHooks[K];
}

/**
 * A model's validate rules one by one, as bulk loads see them (the model's `hooks.validate` is all of them chained):
 * `covered` says how the loaders honour a rule they do not run row by row (`bulkLoadValidation`, `addModelHook`'s
 * `bulkLoad`); a rule that does not say is run for every row a load writes, so a new rule holds on every path.
 */
export interface ValidateRule {
  check: NonNullable<ModelHooks['validate']>;
  covered?: string;
}
const validateRules = new Map<string, ValidateRule[]>();

function addValidateRule(modelName: string, check: ValidateRule['check'], covered: string | undefined): void {
  validateRules.set(modelName, [...(validateRules.get(modelName) ?? []), { check, ...(covered ? { covered } : {}) }]);
}

/** Every validate rule of a model, in the order they were added. */
export function validateRulesOf(modelName: string): readonly ValidateRule[] {
  return validateRules.get(modelName) ?? [];
}

/** The validate rules a bulk load runs for each row it writes of the model: those that do not say they are covered. */
export function bulkLoadRules(modelName: string): ValidateRule['check'][] {
  return validateRulesOf(modelName).flatMap((r) => (r.covered ? [] : [r.check]));
}

/**
 * Adds a derived read-only value to another domain's model (a device's compliance, a platform's end of life),
 * shown after the fields like the model's own computed values.
 */
export function addComputedField(modelName: string, key: string, field: ComputedField): void {
  const model = requireModel(modelName);
  if (key in model.fields || Object.hasOwn(model.computed, key)) throw new Error(`${modelName}.${key} is defined twice.`);
  noteRegistration(modelName, 'computed', [key]);
  model.computed[key] = field;
}

/**
 * A model whose rows name their object by type and id (a contact assignment's object_type/object_id) rather than by
 * a foreign key: templates read them as a list on that object (`device.contacts`), for the models `targets` names.
 */
export interface GenericReverse {
  /** The list's name on the target object. */
  name: string;
  source: string;
  typeColumn: string;
  idColumn: string;
  targets(): readonly string[];
}

const genericReverses: GenericReverse[] = [];

export function registerGenericReverse(relation: GenericReverse): void {
  noteRegistration(relation.source, 'generic reverse', [relation.name]);
  genericReverses.push(relation);
}

/** The generic reverse lists a model's objects have. */
export function genericReversesOf(modelName: string): GenericReverse[] {
  return genericReverses.filter((r) => r.targets().includes(modelName));
}
