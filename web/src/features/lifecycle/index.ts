// End of life: the platform tab (status, mapping picker) and Settings → End of life for deployment admins.
import { lazy } from 'react';
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute } from '../../app/routes.ts';
import { registerDetailTab, registerNavItem } from '../../app/extensions.ts';
import type { Me } from '../../api/types.ts';

export const isAdmin = (me: Me) => me.user.is_superuser || me.permissions.includes('*') || me.permissions.includes('users.manage');

export const eolSettingsRoute = createRoute({ getParentRoute: () => appRoute, path: '/settings/end-of-life', component: lazyRouteComponent(() => import('./EolSettingsPage.tsx')) });
export const routes = [eolSettingsRoute];

registerNavItem({ group: 'Settings', label: 'End of life', to: '/settings/end-of-life', order: 20, visible: isAdmin });
registerDetailTab({ id: 'eol', label: 'End of life', models: 'dcim.platform', order: 100, component: lazy(() => import('./PlatformEolTab.tsx')) });
