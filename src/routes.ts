// Routes beyond the generic model CRUD, one line per domain: each domain's routes.ts stays HTTP-only and calls
// its services.
import type { FastifyInstance } from 'fastify';
import { registerAutomationRoutes } from './automation/routes.ts';
import { registerDeployRoutes } from './automation/deploy-routes.ts';
import { registerDcimRoutes } from './dcim/routes.ts';
import { registerIpamRoutes } from './ipam/routes.ts';
import { registerExtrasRoutes } from './extras/routes.ts';
import { registerMonitoringRoutes } from './monitoring/routes.ts';
import { registerTemplatingRoutes } from './templating/routes.ts';
import { registerRenderRoutes } from './templating/render-routes.ts';
import { registerLifecycleRoutes } from './lifecycle/routes.ts';
import { registerComplianceRoutes } from './compliance/routes.ts';
import { registerUpgradeRoutes } from './upgrade/routes.ts';
import { registerJobRoutes } from './jobs/routes.ts';
import { registerSearchRoutes } from './search/routes.ts';
import { registerUpgradeSystemRoutes } from './system/system-routes.ts';
import { registerUpgradeOnlineRoutes } from './upgrade/online-routes.ts';

export function registerDomainRoutes(app: FastifyInstance): void {
  registerAutomationRoutes(app);
  registerDeployRoutes(app);
  registerDcimRoutes(app);
  registerIpamRoutes(app);
  registerExtrasRoutes(app);
  registerMonitoringRoutes(app);
  registerTemplatingRoutes(app);
  registerRenderRoutes(app);
  registerLifecycleRoutes(app);
  registerComplianceRoutes(app);
  registerUpgradeRoutes(app);
  registerJobRoutes(app);
  registerSearchRoutes(app);
  registerUpgradeSystemRoutes(app);
  registerUpgradeOnlineRoutes(app);
}
