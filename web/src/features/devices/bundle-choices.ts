// The bundles a device's Config tab and Deploy dialog offer: only what the server can render for the device.
import type { ApiObject, Brief } from '../../api/types.ts';

/**
 * What a bundle picker may offer for a device: the name of its role's bundle when the role has exactly one (what
 * `bundle=role` renders; none or several fail on the server), and the bundles that apply to it (bound to no role, or
 * to its role), as the server renders them.
 */
export function bundleChoices(device: ApiObject, bundles: ApiObject[] | undefined): { roleBundle: string | null; usable: ApiObject[] } {
  const role = (device.role as Brief | null | undefined)?.id ?? null;
  const rolesOf = (b: ApiObject) => ((b.roles as Brief[] | undefined) ?? []).map((r) => r.id);
  const usable = (bundles ?? []).filter((b) => rolesOf(b).length === 0 || (role !== null && rolesOf(b).includes(role)));
  const bound = role === null ? [] : usable.filter((b) => rolesOf(b).includes(role));
  return { roleBundle: bound.length === 1 ? String(bound[0]!.name ?? bound[0]!.display) : null, usable };
}
