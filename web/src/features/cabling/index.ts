// Cabling pages: a device's front and rear ports (patch panels), and the cable trace of an interface or a port.
import { lazy } from 'react';
import { registerDetailTab } from '../../app/extensions.ts';

registerDetailTab({ id: 'ports', label: 'Front/Rear ports', models: 'dcim.device', order: 20, component: lazy(() => import('./PortsTab.tsx')) });
registerDetailTab({ id: 'trace', label: 'Trace', models: ['dcim.interface', 'dcim.frontport', 'dcim.rearport'], order: 10, component: lazy(() => import('./TraceTab.tsx')) });
