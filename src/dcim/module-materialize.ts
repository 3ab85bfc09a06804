// A module installed in a bay gets the components its module type describes, as a device gets its type's
// (service.ts, port-materialize.ts): one insertRows per kind of component whatever their number, in the module's
// transaction. NetBox's `{module}` token in a template's name or label becomes the bay's position.
//
// The kinds are a list, in the order they must be made (a front port names the rear port made before it): a new
// kind of component template (console ports, power ports…) is one more entry, through registerModuleComponentKind.
import { noteRegistration } from '../core/provenance.ts';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import type { HookArgs } from '../core/registry.ts';
import { requireModel } from '../core/registry.ts';
import { callerTenant } from '../core/access.ts';
import { fieldError } from '../core/errors.ts';
import { insertRows } from '../core/crud/insert-rows.ts';
import { deleteCablesLosingAnEnd } from './cabling.ts';
import { clearPrimaryAddresses, primaryAddressesOn } from '../ipam/service.ts';

export const MODULE_TOKEN = '{module}';

export interface ModuleComponentKind {
  /** The template model; its table has `module_type_id`, `name` and `name_natural`. */
  template: string;
  /** The component model made from it; its table has `device_id`, `module_id` and a unique (device_id, name). */
  component: string;
  /** Columns copied as they are from the template to the component. */
  columns: readonly string[];
  /** Text columns in which `{module}` is replaced (name always; label where both have one). */
  substituted?: readonly string[];
  /**
   * A column of the template holding another template of the same module type whose component was made by an
   * earlier kind (a front port template's rear port): the component gets that component's id in the same column.
   */
  reference?: { column: string; template: string };
}

/** Interfaces, rear ports, then front ports (which map onto the rear ports just made). */
const kinds: ModuleComponentKind[] = [
  { template: 'dcim.interfacetemplate', component: 'dcim.interface', columns: ['type', 'enabled', 'mgmt_only', 'poe_mode', 'poe_type', 'description'] },
  { template: 'dcim.rearporttemplate', component: 'dcim.rearport', columns: ['type', 'positions', 'description'] },
  { template: 'dcim.frontporttemplate', component: 'dcim.frontport', columns: ['type', 'rear_port_position', 'description'], reference: { column: 'rear_port_id', template: 'dcim.rearporttemplate' } },
];

/** Adds a kind of component a module type's templates make; kinds referring to others come after them. */
export function registerModuleComponentKind(kind: ModuleComponentKind): void {
  noteRegistration('dcim.module', 'components made on install', [kind.component]);
  kinds.push(kind);
}

export function moduleComponentKinds(): readonly ModuleComponentKind[] {
  return kinds;
}

/**
 * NetBox's resolve_name: one `{module}` is the position of the module's own bay; as many tokens as there are
 * levels of modules (a module in a bay of a module) are the positions from the outermost down.
 */
export function resolveModuleToken(text: string, positions: readonly string[]): string {
  if (!text.includes(MODULE_TOKEN)) return text;
  const count = text.split(MODULE_TOKEN).length - 1;
  if (count === 1 || count !== positions.length) return text.split(MODULE_TOKEN).join(positions[positions.length - 1] ?? '');
  let i = 0;
  return text.replace(/\{module\}/g, () => positions[i++]!);
}

/** The positions of the bays from the outermost module down to the one in `bayId`. */
async function bayPositions(tx: Kysely<DB>, ctx: RequestContext, bayId: string): Promise<string[]> {
  const { rows } = await sql<{ position: string; depth: number }>`WITH RECURSIVE up(id, position, module_id, depth) AS (
      SELECT b.id, b.position, b.module_id, 1 FROM module_bays b WHERE b.id = ${bayId} AND ${callerTenant(ctx, 'b')}
      UNION ALL SELECT b.id, b.position, b.module_id, up.depth + 1 FROM up JOIN modules m ON m.id = up.module_id
        JOIN module_bays b ON b.id = m.module_bay_id WHERE up.depth < 20
    ) SELECT position, depth FROM up ORDER BY depth DESC`.execute(tx);
  return rows.map((r) => r.position);
}

type AfterCreateArgs = HookArgs & { row: Record<string, unknown> };

/**
 * Makes a new module's components. Refused (400 naming module_bay, nothing written: the module's own row goes
 * with the transaction) when a template uses `{module}` in a bay without a position, or when a component name
 * is already taken on the device: NetBox's install refuses the same rather than adopting silently.
 */
export async function materializeModuleComponents({ tx, ctx, row }: AfterCreateArgs): Promise<void> {
  const positions = await bayPositions(tx, ctx, String(row.module_bay_id));
  const madeFrom = new Map<string, string>();
  for (const kind of kinds) {
    const templateModel = requireModel(kind.template);
    const componentModel = requireModel(kind.component);
    const substituted = kind.substituted ?? ['name'];
    const { rows: templates } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(templateModel.table)}
      WHERE module_type_id = ${row.module_type_id} AND ${callerTenant(ctx)} ORDER BY name_natural`.execute(tx);
    if (templates.length === 0) continue;
    if (templates.some((t) => substituted.some((c) => String(t[c] ?? '').includes(MODULE_TOKEN))) && !positions[positions.length - 1]) {
      throw fieldError('module_bay', `The module type names its ${componentModel.labelPlural} with {module}, which is the bay's position: give the bay a position first.`);
    }
    const rows = templates.flatMap((t) => {
      const out: Record<string, unknown> = { device_id: row.device_id, module_id: row.id };
      for (const c of kind.columns) out[c] = t[c];
      for (const c of substituted) out[c] = resolveModuleToken(String(t[c] ?? ''), positions);
      if (kind.reference) {
        const made = madeFrom.get(String(t[kind.reference.column]));
        if (!made) return [];
        out[kind.reference.column] = made;
      }
      return [out];
    });
    const names = rows.map((r) => String(r.name));
    const { rows: taken } = await sql<{ name: string }>`SELECT name FROM ${sql.table(componentModel.table)}
      WHERE device_id = ${row.device_id} AND name = ANY(${names}::text[]) ORDER BY name_natural LIMIT 3`.execute(tx);
    if (taken.length > 0) {
      throw fieldError('module_bay', `The device already has ${componentModel.labelPlural} named ${taken.map((t) => t.name).join(', ')}: rename or delete them before installing this module.`);
    }
    const created = await insertRows(tx, ctx, componentModel, rows);
    const byName = new Map(created.map((c) => [String(c.name), String(c.id)]));
    templates.forEach((t, i) => {
      const id = byName.get(String(rows[i]?.name));
      if (id && rows[i]) madeFrom.set(String(t.id), id);
    });
  }
}

/**
 * Modules about to be deleted take their components and the modules in their bays with them (cascade): the
 * cables that would lose an end go first, and addresses that were a device's primary stop being it.
 */
export async function releaseModuleComponents(tx: Kysely<DB>, ctx: RequestContext, moduleIds: string[]): Promise<void> {
  if (moduleIds.length === 0) return;
  const { rows: modules } = await sql<{ id: string }>`WITH RECURSIVE down(id, depth) AS (
      SELECT id, 1 FROM modules WHERE id = ANY(${moduleIds}::uuid[]) AND ${callerTenant(ctx)}
      UNION ALL SELECT m.id, down.depth + 1 FROM down JOIN module_bays b ON b.module_id = down.id JOIN modules m ON m.module_bay_id = b.id WHERE down.depth < 20
    ) SELECT id FROM down`.execute(tx);
  const all = modules.map((m) => m.id);
  const gone: Array<{ type: string; id: string }> = [];
  for (const kind of kinds) {
    const model = requireModel(kind.component);
    const { rows } = await sql<{ id: string }>`SELECT id FROM ${sql.table(model.table)} WHERE module_id = ANY(${all}::uuid[])`.execute(tx);
    for (const r of rows) gone.push({ type: kind.component, id: r.id });
  }
  const interfaces = gone.filter((g) => g.type === 'dcim.interface').map((g) => g.id);
  if (interfaces.length) await clearPrimaryAddresses(tx, ctx, (await primaryAddressesOn(tx, interfaces)).map((a) => a.id));
  await deleteCablesLosingAnEnd(tx, ctx, gone);
}
