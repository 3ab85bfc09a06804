// Circuits pages: a circuit's two terminations (A and Z) with what each ends on and where its cable goes, and the
// cable trace from a termination.
import { lazy } from 'react';
import { registerDetailTab } from '../../app/extensions.ts';

registerDetailTab({ id: 'terminations', label: 'Terminations', models: 'circuits.circuit', order: 5, component: lazy(() => import('./TerminationsTab.tsx')) });
registerDetailTab({ id: 'trace', label: 'Trace', models: 'circuits.circuittermination', order: 10, component: lazy(() => import('../cabling/TraceTab.tsx')) });
