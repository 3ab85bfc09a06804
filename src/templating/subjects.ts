// What templates may touch: which object types can feed an export template, which rows are "closed" (accounts,
// groups, grants, tokens, the change log) and which computed values a template may read. The row proxies and the
// export-template checks both ask here, so the rule lives in one place.
import type { ModelDef } from '../core/registry.ts';
import { allModels } from '../core/registry.ts';

/**
 * Models a template never reads as rows. Reached through a relation they expose a name at most (see
 * CLOSED_NAME_FIELDS); as a subject they are refused.
 */
const CLOSED_MODELS = new Set(['users.user', 'users.group', 'users.permission', 'users.token', 'core.objectchange']);

/** The one attribute an account, a group or the tenant shows when a relation reaches it. */
export const CLOSED_NAME_FIELDS: Readonly<Record<string, string>> = {
  'users.user': 'username',
  'users.group': 'name',
  'tenancy.tenant': 'name',
};

/**
 * Keychains carry a secret key but are ordinary inventory: their key stays unreadable (it is a secret field), the
 * rest of the row is data configs need.
 */
const SECRET_BEARING_INVENTORY = new Set(['routing.keychain']);

/** Types named by the product as credential-bearing even if their secret lives elsewhere one day. */
const CREDENTIAL_TYPES = new Set(['extras.webhook', 'automation.automationtarget', 'dcim.devicecredential']);

/**
 * Computed values a template may read. Computed fields are written for the API; listing the ones that are plain
 * data here (rather than exposing every computed field) keeps a future computed value that reveals something
 * (a secret's presence is harmless, a decrypted value would not be) out of templates until someone decides.
 */
const READABLE_COMPUTED: Readonly<Record<string, readonly string[]>> = {
  'dcim.device': ['primary_ip'],
  'virtualization.virtualmachine': ['primary_ip'],
  'dcim.interface': ['link_peer', 'connected_endpoint'],
  // Every other kind of cable end: what is across its cable and where its path ends; power figures.
  'dcim.frontport': ['link_peer'],
  'dcim.rearport': ['link_peer'],
  'dcim.consoleport': ['link_peer', 'connected_endpoint'],
  'dcim.consoleserverport': ['link_peer', 'connected_endpoint'],
  'dcim.powerport': ['link_peer', 'connected_endpoint'],
  'dcim.poweroutlet': ['link_peer', 'connected_endpoint'],
  'dcim.powerfeed': ['link_peer', 'connected_endpoint', 'power_utilization'],
  'dcim.powerpanel': ['power_utilization'],
  'dcim.rack': ['power_utilization'],
  'circuits.circuittermination': ['link_peer', 'connected_endpoint'],
  'ipam.ipaddress': ['family', 'prefix', 'assigned_object_type', 'assigned_object'],
  'ipam.prefix': ['family'],
  'routing.keychain': ['key_set'],
};

export function isClosedModel(model: ModelDef): boolean {
  return CLOSED_MODELS.has(model.name);
}

export function hasSecretField(model: ModelDef): boolean {
  return Object.values(model.fields).some((f) => f.secret);
}

export function isCredentialType(model: ModelDef): boolean {
  return CREDENTIAL_TYPES.has(model.name) || (hasSecretField(model) && !SECRET_BEARING_INVENTORY.has(model.name));
}

export type SubjectCheck = { ok: true; model: ModelDef } | { ok: false; message: string };

/** Resolves an export template's `object_type` (`app.model`) and says whether it may feed a template. */
export function checkSubjectType(objectType: string): SubjectCheck {
  const model = allModels().find((m) => m.name === objectType);
  if (!model) return { ok: false, message: `Unknown object type "${objectType.slice(0, 64)}". Use an app.model name such as dcim.device.` };
  if (isClosedModel(model) || isCredentialType(model) || !model.operations.list) return { ok: false, message: 'This type cannot be exported by template.' };
  return { ok: true, model };
}

export function readableComputed(model: ModelDef): readonly string[] {
  return (READABLE_COMPUTED[model.name] ?? []).filter((k) => k in model.computed);
}

/** Object types an export template may name, for the API description and the UI. */
export function exportableTypes(): string[] {
  return allModels()
    .filter((m) => checkSubjectType(m.name).ok)
    .map((m) => m.name)
    .sort();
}
