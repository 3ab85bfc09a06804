// Export templates: the source editor (new and existing), the Template tab and header actions on the detail page.
import { lazy } from 'react';
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute } from '../../app/routes.ts';
import { registerCellRenderer, registerDetailAction, registerDetailTab, registerNavItem } from '../../app/extensions.ts';
import { registerOwnEditor } from '../../app/paths.ts';
import { ObjectTypeCell } from './ObjectTypeCell.tsx';

const MODEL = 'extras.exporttemplate';
const editor = lazyRouteComponent(() => import('./TemplateEditorPage.tsx'));

export const newTemplateRoute = createRoute({ getParentRoute: () => appRoute, path: '/export-templates/new', component: editor });
export const templateEditorRoute = createRoute({ getParentRoute: () => appRoute, path: '/export-templates/$id/editor', component: editor });
export const routes = [newTemplateRoute, templateEditorRoute];

// One editor: the list's Add, the detail page's Edit and the generic form's addresses all lead to the source editor.
registerOwnEditor(MODEL, { create: '/export-templates/new', edit: (id) => `/export-templates/${id}/editor` });
registerNavItem({ group: 'Customization', label: 'New export template', to: '/export-templates/new', order: 10, visible: (me) => me.permissions.some((p) => p === '*' || p.includes('exporttemplate')) });
// The object type by its model's label, in the list and on the overview.
registerCellRenderer(MODEL, 'object_type', ObjectTypeCell);
registerDetailTab({ id: 'template', label: 'Template', models: MODEL, order: 10, component: lazy(() => import('./TemplateTab.tsx')) });
registerDetailAction({ id: 'template-actions', models: MODEL, order: 10, component: lazy(() => import('./TemplateActions.tsx')) });
