// Console ports (a device's serial console) and console server ports (the lines of a terminal server), on devices
// and as templates on device types. A console port is cabled to a console server port, directly or through patch
// panels; both are trace endpoints, so a device's page shows which console server line reaches it.
import { defineModel, type FieldDef, type HookArgs } from '../core/registry.ts';
import { fieldError } from '../core/errors.ts';
import { linkPeerOf } from './cabling.ts';
import { registerCableEnd } from './cable-ends.ts';
import { connectedEndpointOf } from './trace.ts';
import { CONSOLE_PORT_SPEEDS } from './power-choices.ts';
import { cableEndDeleteHooks, checkMarkConnected, descriptionField, labelField, markConnectedField, onDevice } from './component-rules.ts';
import { checkComponentModule, checkTemplateOwner, componentModuleField, templateDeviceTypeField, templateModuleTypeField } from './template-owner.ts';
import { registerModuleComponentKind } from './module-materialize.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

// NetBox's pairs: a console port to a console server port, either through patch panels.
registerCableEnd({ type: 'dcim.consoleport', table: 'console_ports', parent: onDevice, endpoint: true, markConnected: true, compatible: ['dcim.consoleserverport', 'dcim.frontport', 'dcim.rearport'] });
registerCableEnd({ type: 'dcim.consoleserverport', table: 'console_server_ports', parent: onDevice, endpoint: true, markConnected: true, compatible: ['dcim.consoleport', 'dcim.frontport', 'dcim.rearport'] });

const typeField: FieldDef = { kind: 'choice', vocabulary: 'console_port_types', nullable: true, help: 'The physical connector (RJ-45, DE-9, USB…).' };
const speedField: FieldDef = {
  kind: 'integer',
  nullable: true,
  label: 'Speed (bps)',
  help: `Line speed in bits per second: one of ${CONSOLE_PORT_SPEEDS.map((s) => s.value).join(', ')}.`,
};
const SPEEDS = new Set(CONSOLE_PORT_SPEEDS.map((s) => Number(s.value)));

/** NetBox stores the speed as a number from its list of line speeds (ConsolePortSpeedChoices). */
function checkSpeed(input: Record<string, unknown>): void {
  const speed = input.speed;
  if (typeof speed === 'number' && !SPEEDS.has(speed)) {
    throw fieldError('speed', `${speed} is not a console line speed; use one of ${[...SPEEDS].join(', ')} bps.`);
  }
}

function templateModel(name: string, table: string, path: string, label: string) {
  return defineModel({
    name,
    table,
    path,
    label,
    tenantScoped: true,
    displayParent: ['device_type', 'module_type'],
    fields: {
      device_type: templateDeviceTypeField,
      module_type: templateModuleTypeField,
      name: { kind: 'string', maxLength: 64, naturalOrder: true },
      label: labelField,
      type: typeField,
      description: descriptionField,
    },
    searchFields: ['name', 'label', 'description'],
    defaultOrdering: ['device_type', 'name'],
    bulkLoadValidation: PLANNED_BY_LOADERS,
    hooks: { validate: async (args) => void checkTemplateOwner(args) },
  });
}

function portModel(name: string, table: string, path: string, label: string) {
  const validate = async (args: HookArgs & { input: Record<string, unknown>; existing: Record<string, unknown> | null }) => {
    checkSpeed(args.input);
    await checkComponentModule(args);
    await checkMarkConnected(name, args);
  };
  return defineModel({
    name,
    table,
    path,
    label,
    tenantScoped: true,
    displayParent: ['device'],
    fields: {
      device: { kind: 'fk', target: 'dcim.device', onDelete: 'cascade' },
      module: componentModuleField,
      name: { kind: 'string', maxLength: 64, naturalOrder: true },
      label: labelField,
      type: typeField,
      speed: speedField,
      mark_connected: markConnectedField,
      description: descriptionField,
      tags: { kind: 'tags' },
      custom_fields: { kind: 'custom_fields' },
    },
    computed: { link_peer: linkPeerOf(name), connected_endpoint: connectedEndpointOf(name) },
    searchFields: ['name', 'label', 'description'],
    defaultOrdering: ['device', 'name'],
    bulkLoadValidation: PLANNED_BY_LOADERS,
    hooks: { validate, ...cableEndDeleteHooks(name) },
  });
}

export const consolePortTemplateModel = templateModel('dcim.consoleporttemplate', 'console_port_templates', '/api/console-port-templates/', 'console port template');
export const consoleServerPortTemplateModel = templateModel(
  'dcim.consoleserverporttemplate',
  'console_server_port_templates',
  '/api/console-server-port-templates/',
  'console server port template',
);
export const consolePortModel = portModel('dcim.consoleport', 'console_ports', '/api/console-ports/', 'console port');
export const consoleServerPortModel = portModel('dcim.consoleserverport', 'console_server_ports', '/api/console-server-ports/', 'console server port');

// A module type's console templates make the installed module's console lines ({module} in names and labels).
registerModuleComponentKind({ template: 'dcim.consoleporttemplate', component: 'dcim.consoleport', columns: ['type', 'description'], substituted: ['name', 'label'] });
registerModuleComponentKind({ template: 'dcim.consoleserverporttemplate', component: 'dcim.consoleserverport', columns: ['type', 'description'], substituted: ['name', 'label'] });
