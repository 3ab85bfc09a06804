// Which registry models the NetBox dialect serves, under which NetBox name and path, and how their fields are named
// there. Derived from the registry once, after every model is defined: a model whose name (or declared NetBox name)
// is one of NetBox's endpoints joins; `netbox: false` or a model without numbers (ids must be integers) does not.
import type { FieldDef, ModelDef } from '../core/registry.ts';
import { allModels } from '../core/registry.ts';
import { NETBOX_ENDPOINTS } from './endpoints.ts';

export interface DialectModel {
  model: ModelDef;
  /** NetBox's `app.model`. */
  name: string;
  /** `/api/dcim/devices/` */
  path: string;
  /** NetBox's app (`dcim`). */
  app: string;
  /** Cairn field key → NetBox key (every served field, renamed or not). */
  out: ReadonlyMap<string, string>;
  /** NetBox key → Cairn field key. */
  in: ReadonlyMap<string, string>;
  /** NetBox generic relation name → (NetBox object type → Cairn fk key). */
  generic: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** Older NetBox names answered and accepted beside the current ones: alias → Cairn field key. */
  aliases: ReadonlyMap<string, string>;
  /** Cairn keys of the fks a generic relation is written over (not served under their own names). */
  genericFields: ReadonlySet<string>;
}

let byName: Map<string, DialectModel> | null = null;
let byCairn: Map<string, DialectModel> | null = null;

/** The NetBox name of a field by default: Cairn's, except an owner (NetBox's tenant). */
function defaultKey(key: string, field: FieldDef): string {
  if (key === 'owner' && field.kind === 'fk' && field.target === 'tenancy.owner') return 'tenant';
  return key;
}

function build(): void {
  byName = new Map();
  byCairn = new Map();
  // A NetBox path that is one of Cairn's own (`/api/users/tokens/`) keeps Cairn's meaning: that model is left out.
  const cairnPaths = new Set(allModels().map((m) => m.path));
  for (const model of allModels()) {
    if (model.netbox === false || !model.numbered) continue;
    const declared = model.netbox ?? {};
    const name = declared.name ?? model.name;
    const endpoint = NETBOX_ENDPOINTS.get(name);
    if (!endpoint || cairnPaths.has(`/api/${endpoint}/`)) continue;
    const generic = new Map(Object.entries(declared.generic ?? {}).map(([k, v]) => [k, new Map(Object.entries(v))] as const));
    const genericFields = new Set([...generic.values()].flatMap((m) => [...m.values()]));
    const out = new Map<string, string>();
    for (const [key, field] of Object.entries(model.fields)) {
      if (genericFields.has(key)) continue;
      out.set(key, declared.fields?.[key] ?? defaultKey(key, field));
    }
    const entry: DialectModel = {
      model,
      name,
      path: `/api/${endpoint}/`,
      app: endpoint.split('/')[0]!,
      out,
      in: new Map([...Object.entries(declared.aliases ?? {}), ...[...out].map(([k, v]) => [v, k] as [string, string])]),
      aliases: new Map(Object.entries(declared.aliases ?? {})),
      generic,
      genericFields,
    };
    byName.set(name, entry);
    byCairn.set(model.name, entry);
  }
}

export function dialectModels(): DialectModel[] {
  if (!byName) build();
  return [...byName!.values()];
}

/** The dialect entry of a Cairn model, or undefined when it has no NetBox twin. */
export function dialectOf(cairnName: string): DialectModel | undefined {
  if (!byCairn) build();
  return byCairn!.get(cairnName);
}

/** A Cairn model name as NetBox names it (`organization.site` → `dcim.site`); other names are kept. */
export function netboxTypeName(cairnName: string): string {
  return dialectOf(cairnName)?.name ?? cairnName;
}

/** A NetBox model name as Cairn names it (`dcim.site` → `organization.site`); other names are kept. */
export function cairnTypeName(netboxName: string): string {
  return dialectByNetboxName(netboxName)?.model.name ?? netboxName;
}

/** Values of an objectTypes field (a name or a list of names) renamed by `rename`. */
export function renamedTypes(value: unknown, rename: (name: string) => string): unknown {
  if (typeof value === 'string') return rename(value);
  return Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? rename(v) : v)) : value;
}

/** The dialect entry of a NetBox model name (`dcim.interface`). */
export function dialectByNetboxName(name: string): DialectModel | undefined {
  if (!byName) build();
  return byName!.get(name);
}
