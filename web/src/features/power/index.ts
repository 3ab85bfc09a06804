// Console and power pages: a device's Console/Power tab (its console line and where each power supply is fed
// from), the Trace tab on console and power ports, outlets and feeds, and power utilisation drawn as watts and a
// meter on feeds, panels and racks.
import { lazy } from 'react';
import { registerCellRenderer, registerDetailTab } from '../../app/extensions.ts';
import { PowerUtilizationCell } from './PowerUtilizationCell.tsx';

registerDetailTab({ id: 'console-power', label: 'Console/Power', models: 'dcim.device', order: 25, count: ['dcim.consoleport', 'dcim.consoleserverport', 'dcim.powerport', 'dcim.poweroutlet'], component: lazy(() => import('./ConsolePowerTab.tsx')) });
registerDetailTab({
  id: 'trace',
  label: 'Trace',
  models: ['dcim.consoleport', 'dcim.consoleserverport', 'dcim.powerport', 'dcim.poweroutlet', 'dcim.powerfeed'],
  order: 10,
  component: lazy(() => import('../cabling/TraceTab.tsx')),
});
for (const model of ['dcim.powerfeed', 'dcim.powerpanel', 'dcim.rack']) registerCellRenderer(model, 'power_utilization', PowerUtilizationCell);
