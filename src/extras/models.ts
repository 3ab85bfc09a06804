// Extras: tags (more arrive with the inventory: statuses, custom fields, config contexts).
import { defineModel } from '../core/registry.ts';

export const tagModel = defineModel({
  name: 'extras.tag',
  table: 'tags',
  path: '/api/tags/',
  label: 'tag',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 100, unique: true },
    slug: { kind: 'slug', maxLength: 100, unique: true },
    color: { kind: 'color', default: '9e9e9e' },
    description: { kind: 'string', maxLength: 200, default: '' },
  },
  searchFields: ['name', 'slug', 'description'],
  defaultOrdering: ['name'],
});
