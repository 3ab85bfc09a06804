// Racks in the UI: a rack's page draws its front and rear elevations (devices in their units in their role's
// colour, free units visible, a click opens the device); a device's Overview draws its rack small with the device
// outlined; the rack list shows how much of each rack is used by default.
import { lazy } from 'react';
import { registerDefaultColumn, registerDetailTab, registerOverviewPanel } from '../../app/extensions.ts';

registerDetailTab({ id: 'elevation', label: 'Elevation', models: 'dcim.rack', order: 5, component: lazy(() => import('./RackElevationTab.tsx')) });
registerOverviewPanel({ id: 'rack', models: 'dcim.device', order: 10, component: lazy(() => import('./DeviceRackPanel.tsx')) });
registerDefaultColumn('dcim.rack', 'utilization');
