// Every feature module, one import line each (see web/README.md). Importing a feature runs its registrations
// (detail tabs, actions, cell renderers, nav entries); its `routes` are added under the signed-in layout.
// Keep these imports static and keep page components lazy inside each feature, so the first page stays small.
import type { AnyRoute } from '@tanstack/react-router';

interface Feature {
  routes?: AnyRoute[];
}

// import * as exportTemplates from './export-templates/index.ts';
import * as exportTemplates from './export-templates/index.ts';
import * as devices from './devices/index.ts';
import * as services from './services/index.ts';
import * as lifecycle from './lifecycle/index.ts';
import * as compliance from './compliance/index.ts';
import * as system from './system/index.ts';
import * as ipam from './ipam/index.ts';
import * as racks from './racks/index.ts';
import * as cabling from './cabling/index.ts';
import * as power from './power/index.ts';
import * as changes from './changes/index.ts';
import * as circuits from './circuits/index.ts';

const features: Feature[] = [
  // exportTemplates,
  exportTemplates,
  devices,
  services,
  lifecycle,
  compliance,
  system,
  ipam,
  racks,
  cabling,
  power,
  changes,
  circuits,
];

export const featureRoutes: AnyRoute[] = features.flatMap((f) => f.routes ?? []);
