// Device pages: Interfaces (addresses, VLANs, cable far ends; Add components and each row's actions), Config (bound template, bundles, push drift), Services, Compliance tabs, the Deploy button, and
// end-of-life / compliance markers in the device and platform lists.
import { lazy } from 'react';
import { registerCellRenderer, registerDefaultColumn, registerDetailAction, registerDetailTab, registerOverviewHidden } from '../../app/extensions.ts';
import { ComplianceCell, DevicePlatformCell, EolCell } from './EolBadge.tsx';
import { ConfigTemplateCell } from './ConfigTemplateCell.tsx';

registerDetailTab({ id: 'interfaces', label: 'Interfaces', models: 'dcim.device', order: 10, component: lazy(() => import('./InterfacesTab.tsx')) });
registerDetailTab({ id: 'config', label: 'Config', models: 'dcim.device', order: 100, component: lazy(() => import('./ConfigTab.tsx')) });
registerDetailTab({ id: 'services', label: 'Services', models: ['dcim.device', 'virtualization.virtualmachine'], order: 110, component: lazy(() => import('../services/ServicesTab.tsx')) });
registerDetailTab({ id: 'compliance', label: 'Compliance', models: ['dcim.device', 'virtualization.virtualmachine'], order: 120, component: lazy(() => import('./ComplianceTab.tsx')) });
registerDetailAction({ id: 'deploy', models: 'dcim.device', order: 10, component: lazy(() => import('./DeployButton.tsx')) });
// An interface's page: Connect a cable, Add an IP address and Trace beside its Edit and Delete.
registerDetailAction({ id: 'interface-actions', models: 'dcim.interface', order: 10, component: lazy(() => import('./InterfaceActions.tsx')) });
registerCellRenderer('dcim.platform', 'eol', EolCell);
registerCellRenderer('dcim.device', 'platform', DevicePlatformCell);
// Violations are what a device or VM list is read for: the marker column is on unless the user saved columns without it.
for (const model of ['dcim.device', 'virtualization.virtualmachine']) {
  registerCellRenderer(model, 'compliance', ComplianceCell);
  registerDefaultColumn(model, 'compliance');
  // The list's one Primary IP column is the page's Primary IPv4 or IPv6 row again.
  registerOverviewHidden(model, 'primary_ip');
}
registerCellRenderer('dcim.device', 'config_template', ConfigTemplateCell);
