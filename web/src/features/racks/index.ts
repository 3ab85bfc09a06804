// Racks in the UI: a rack's page draws its front and rear elevations (devices in their units, free units
// visible, a click opens the device).
import { lazy } from 'react';
import { registerDetailTab } from '../../app/extensions.ts';

registerDetailTab({ id: 'elevation', label: 'Elevation', models: 'dcim.rack', order: 5, component: lazy(() => import('./RackElevationTab.tsx')) });
