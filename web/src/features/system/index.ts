// System pages: Jobs (everyone signed in sees the jobs they may), Updates, Settings → Updates and Settings → Backups
// (deployment admins).
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute } from '../../app/routes.ts';
import { registerNavItem } from '../../app/extensions.ts';
import { isAdmin } from '../lifecycle/index.ts';
import { UpdateBadge } from './UpdateBadge.tsx';

export const jobsRoute = createRoute({ getParentRoute: () => appRoute, path: '/jobs', component: lazyRouteComponent(() => import('./JobsPage.tsx')) });
export const updatesRoute = createRoute({ getParentRoute: () => appRoute, path: '/system/updates', component: lazyRouteComponent(() => import('./UpdatesPage.tsx')) });
export const backupsRoute = createRoute({ getParentRoute: () => appRoute, path: '/settings/backups', component: lazyRouteComponent(() => import('./BackupsPage.tsx')) });
export const updateSettingsRoute = createRoute({ getParentRoute: () => appRoute, path: '/settings/updates', component: lazyRouteComponent(() => import('./UpgradeSettingsPage.tsx')) });
export const routes = [jobsRoute, updatesRoute, backupsRoute, updateSettingsRoute];

registerNavItem({ group: 'Logs', label: 'Jobs', to: '/jobs', order: 0 });
registerNavItem({ group: 'Settings', label: 'Updates', to: '/system/updates', order: 10, visible: isAdmin, badge: UpdateBadge });
registerNavItem({ group: 'Settings', label: 'Update settings', to: '/settings/updates', order: 11, visible: isAdmin });
registerNavItem({ group: 'Settings', label: 'Backups', to: '/settings/backups', order: 30, visible: isAdmin });
