// Component templates belong to a device type or, since modules, to a module type: exactly one of the two (NetBox's
// ModularComponentTemplateModel). Components made for a module carry it and are deleted with it.
import { sql } from 'kysely';
import type { FieldDef, HookArgs } from '../core/registry.ts';
import { callerTenant } from '../core/access.ts';
import { ErrorCollector, fieldError } from '../core/errors.ts';

export const templateDeviceTypeField: FieldDef = { kind: 'fk', target: 'dcim.devicetype', nullable: true, onDelete: 'cascade', help: 'The device type this template belongs to (or set a module type).' };
export const templateModuleTypeField: FieldDef = {
  kind: 'fk',
  target: 'dcim.moduletype',
  nullable: true,
  onDelete: 'cascade',
  help: 'The module type this template belongs to, instead of a device type; {module} in its name becomes the bay position.',
};
export const componentModuleField: FieldDef = { kind: 'fk', target: 'dcim.module', nullable: true, onDelete: 'cascade', help: 'The module this component was made for, if any.', pickerFilters: { device_id: '$field:device' } };

type ValidateArgs = HookArgs & { input: Record<string, unknown>; existing: Record<string, unknown> | null };

/** The template's owner after the write: 'device_type' or 'module_type' (refused when neither or both). */
export function checkTemplateOwner({ input, existing }: Pick<ValidateArgs, 'input' | 'existing'>): 'device_type' | 'module_type' {
  const deviceType = 'device_type' in input ? input.device_type : existing?.device_type_id ?? null;
  const moduleType = 'module_type' in input ? input.module_type : existing?.module_type_id ?? null;
  const errors = new ErrorCollector();
  if (deviceType && moduleType) errors.add('module_type', 'A template belongs to a device type or to a module type, not both: clear one.');
  else if (!deviceType && !moduleType) errors.add('device_type', 'Choose the device type (or the module type) this template belongs to.');
  errors.throwIfAny();
  return moduleType ? 'module_type' : 'device_type';
}

/** A component's module is installed in the component's own device (components of a module go where it is). */
export async function checkComponentModule({ tx, ctx, input, existing }: ValidateArgs): Promise<void> {
  const module = 'module' in input ? input.module : existing?.module_id ?? null;
  if (typeof module !== 'string' || (!('module' in input) && !('device' in input))) return;
  const device = 'device' in input ? input.device : existing?.device_id;
  const { rows } = await sql<{ device_id: string; device: string }>`SELECT m.device_id, d.name AS device FROM modules m JOIN devices d ON d.id = m.device_id
    WHERE m.id = ${module} AND ${callerTenant(ctx, 'm')}`.execute(tx);
  if (rows[0] && rows[0].device_id !== device) throw fieldError('module', `That module is installed in ${rows[0].device}: a component's module is one of its own device's.`);
}
