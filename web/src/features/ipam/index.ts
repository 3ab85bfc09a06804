// IPAM in the UI: a prefix list shows how full each prefix is (the utilisation bar) and its place in the
// hierarchy (indentation by depth); a prefix page shows its space (parents, children, free blocks, addresses)
// and the allocation buttons; an IP range and a VLAN group have theirs (next free address, next free VLAN).
import { lazy } from 'react';
import { registerCellRenderer, registerDefaultColumn, registerDetailAction, registerDetailTab, registerDetailTitle } from '../../app/extensions.ts';
import { withHostMask } from '../../components/Value.tsx';
import { PrefixCell } from './PrefixCell.tsx';

registerDefaultColumn('ipam.prefix', 'utilization');
registerCellRenderer('ipam.prefix', 'prefix', PrefixCell);
registerDetailTab({ id: 'space', label: 'Space', models: 'ipam.prefix', order: 10, component: lazy(() => import('./PrefixSpaceTab.tsx')) });
registerDetailAction({ id: 'allocate', models: 'ipam.prefix', order: 10, component: lazy(() => import('./PrefixActions.tsx')) });
registerDetailAction({ id: 'allocate', models: 'ipam.iprange', order: 10, component: lazy(() => import('./RangeActions.tsx')) });
registerDetailAction({ id: 'allocate', models: 'ipam.vlangroup', order: 10, component: lazy(() => import('./VlanGroupActions.tsx')) });
// An address's page reads it with its mask, as its list and search do (10.0.0.1/32).
registerDetailTitle('ipam.ipaddress', (o) => ({ title: withHostMask(o.display), subtitle: o.numid ? `#${String(o.numid)}` : undefined }));
