// Service pages: the Monitored switch and Edit dialog on a service, its Checks tab, and the Services tab of a
// device type (service templates with a Monitor tick). The device/VM Services tab is registered in ../devices.
import { lazy } from 'react';
import { registerDetailAction, registerDetailTab } from '../../app/extensions.ts';

registerDetailAction({ id: 'service-actions', models: 'monitoring.service', order: 10, replacesEdit: true, component: lazy(() => import('./ServiceActions.tsx')) });
registerDetailTab({ id: 'checks', label: 'Checks', models: 'monitoring.service', order: 100, component: lazy(() => import('./ChecksTab.tsx')) });
registerDetailTab({ id: 'services', label: 'Services', models: 'dcim.devicetype', order: 100, component: lazy(() => import('./DeviceTypeServicesTab.tsx')) });
