// What console and power components share: the fields every one has, the cable-end hooks of a cabled component,
// and NetBox's rule that a component marked connected has no cable.
import { sql } from 'kysely';
import type { FieldDef, HookArgs, ModelHooks } from '../core/registry.ts';
import { fieldError } from '../core/errors.ts';
import { deleteCablesLosingAnEnd } from './cabling.ts';

export const onDevice = { model: 'dcim.device', table: 'devices', column: 'device_id', nameColumn: 'name' };

export const labelField: FieldDef = { kind: 'string', maxLength: 64, default: '', help: 'The physical label on the port, when it differs from its name.' };
export const descriptionField: FieldDef = { kind: 'string', maxLength: 200, default: '' };
export const markConnectedField: FieldDef = {
  kind: 'boolean',
  label: 'Mark connected',
  help: 'Treat as connected though no cable is recorded (a connection outside Cairn).',
};

type ValidateArgs = HookArgs & { input: Record<string, unknown>; existing: Record<string, unknown> | null };

/** NetBox: a component with a cable cannot also be marked connected (the mark stands for a cable not recorded). */
export async function checkMarkConnected(type: string, { tx, input, existing }: ValidateArgs): Promise<void> {
  if (input.mark_connected !== true || !existing) return;
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM cable_terminations
    WHERE termination_type = ${type} AND termination_id = ${existing.id}`.execute(tx);
  if (rows[0]!.n > 0) throw fieldError('mark_connected', 'This port has a cable: it cannot also be marked connected. Delete the cable first.');
}

/** A cabled kind's delete hooks: its cables go with it when they would be left without an end. */
export function cableEndDeleteHooks(type: string): Pick<ModelHooks, 'beforeDelete' | 'beforeDeleteMany'> {
  return {
    beforeDelete: ({ tx, ctx, row }) => deleteCablesLosingAnEnd(tx, ctx, [{ type, id: String(row.id) }]),
    beforeDeleteMany: ({ tx, ctx, rows }) => deleteCablesLosingAnEnd(tx, ctx, rows.map((r) => ({ type, id: String(r.id) }))),
  };
}

/** The value a write leaves: the input's when sent, else the stored one. */
export function merged(input: Record<string, unknown>, existing: Record<string, unknown> | null, key: string, column = key): unknown {
  if (key in input) return input[key] ?? null;
  return existing?.[column] ?? null;
}
