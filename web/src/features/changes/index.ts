// The change list (Logs › Changes): objects by name and kind, without the ids the log keeps (they stay on the
// change's own page and in the column picker); a change's page shows what it wrote (the Fields tab).
import { lazy } from 'react';
import { registerCellRenderer, registerColumnHiddenByDefault, registerDetailTab } from '../../app/extensions.ts';
import { ChangedObjectCell, JournalObjectCell, ObjectTypeCell } from './ChangeCells.tsx';

registerCellRenderer('core.objectchange', 'object_type', ObjectTypeCell);
registerCellRenderer('core.objectchange', 'object_repr', ChangedObjectCell);
registerColumnHiddenByDefault('core.objectchange', 'object_id');
registerColumnHiddenByDefault('core.objectchange', 'request_id');
// Journal entries name the kind of object they are written on the same way, and link it instead of showing its id.
registerCellRenderer('core.journalentry', 'object_type', ObjectTypeCell);
registerCellRenderer('core.journalentry', 'object_id', JournalObjectCell);
// A change's page shows what it wrote, field by field.
registerDetailTab({ id: 'fields', label: 'Fields', models: 'core.objectchange', order: 5, component: lazy(() => import('./ChangeFieldsTab.tsx')) });
