// Compliance: the page of rules and open violations (the device tab and list marker live in ../devices).
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute } from '../../app/routes.ts';
import { registerNavItem } from '../../app/extensions.ts';

export const complianceRoute = createRoute({ getParentRoute: () => appRoute, path: '/compliance', component: lazyRouteComponent(() => import('./CompliancePage.tsx')) });
export const routes = [complianceRoute];

registerNavItem({ group: 'Compliance', label: 'Rules and violations', to: '/compliance', order: 0 });
