// Cabling pages: a device's front and rear ports (patch panels), the cable trace of an interface or a port, a
// cable's length with its unit, and the interface list's default columns (its cable's far end among them).
import { lazy } from 'react';
import { registerCellRenderer, registerColumnHiddenByDefault, registerDefaultColumn, registerDetailTab, registerDetailTitle } from '../../app/extensions.ts';
import { cableHeading } from './cable-title.ts';
import { CableLengthCell } from './CableLengthCell.tsx';

registerDetailTab({ id: 'ports', label: 'Front/Rear ports', models: 'dcim.device', order: 20, component: lazy(() => import('./PortsTab.tsx')) });
registerDetailTab({ id: 'trace', label: 'Trace', models: ['dcim.interface', 'dcim.frontport', 'dcim.rearport'], order: 10, component: lazy(() => import('./TraceTab.tsx')) });
// The interface list reads as NetBox's: name, device, type, state, description, LAG and where its cable goes; the
// physical details (MTU, MAC, speed, duplex, PoE) and the parent are a column choice away.
for (const key of ['mgmt_only', 'mtu', 'mac_address', 'speed', 'duplex', 'poe_mode', 'poe_type', 'parent']) registerColumnHiddenByDefault('dcim.interface', key);
registerDefaultColumn('dcim.interface', 'link_peer');
registerCellRenderer('dcim.cable', 'length', CableLengthCell);
registerDetailTitle('dcim.cable', cableHeading);
