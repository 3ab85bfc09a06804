// The two API calls the web UI needs beyond the generic ones: the model index (what the caller may see and do,
// so navigation and buttons follow permissions without a hand-kept list) and per-user preferences (saved list
// columns and page sizes). Both are ordinary public API endpoints.
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { allModels } from '../core/registry.ts';
import { modelAllows } from '../core/access.ts';
import { referencesTo } from '../core/crud/related.ts';
import { badRequest, unauthorized } from '../core/errors.ts';
import { dbOf } from '../core/http.ts';
import { contactObjectModels } from '../organization/contacts.ts';

/** Size cap of one user's preference document: a few hundred list layouts, not a data store. */
export const PREFERENCES_MAX_BYTES = 64 * 1024;
const KEY_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$';

/** A named component (`ModelIndex`): the web UI's navigation and buttons are typed from it. */
const modelIndexSchema = {
  $id: 'ModelIndex',
  type: 'object',
  properties: {
    models: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          model: { type: 'string' },
          app: { type: 'string' },
          label: { type: 'string' },
          label_plural: { type: 'string' },
          path: { type: 'string' },
          tenant_scoped: { type: 'boolean' },
          has_custom_fields: { type: 'boolean' },
          has_journal: { type: 'boolean' },
          has_contacts: { type: 'boolean', description: 'Its objects can have contacts assigned (/api/contact-assignments/).' },
          has_related: { type: 'boolean', description: 'Other models point at it: <path>{id}/related/ counts them.' },
          can: {
            type: 'object',
            properties: { view: { type: 'boolean' }, add: { type: 'boolean' }, change: { type: 'boolean' }, delete: { type: 'boolean' } },
            required: ['view', 'add', 'change', 'delete'],
          },
        },
        required: ['model', 'app', 'label', 'label_plural', 'path', 'tenant_scoped', 'has_custom_fields', 'has_journal', 'has_contacts', 'has_related', 'can'],
      },
    },
  },
  required: ['models'],
};

const preferencesSchema = {
  type: 'object',
  properties: { preferences: { type: 'object', additionalProperties: true } },
};

export function registerUiApiRoutes(app: FastifyInstance): void {
  app.addSchema(modelIndexSchema);
  app.get('/api/models/', {
    schema: {
      tags: ['core'],
      summary: 'The object types you may list, with the actions you may take on each',
      description: 'Lists every model with a list endpoint that the caller may view. `can` combines the routes a model has with the caller\'s permissions.',
      response: { 200: { $ref: 'ModelIndex#' } },
    },
    handler: async (req) => {
      const ctx = req.ctx;
      const withContacts = new Set(contactObjectModels().map((m) => m.name));
      const models = allModels()
        .filter((m) => m.operations.list && modelAllows(ctx, m, 'view'))
        .map((m) => ({
          model: m.name,
          app: m.name.split('.')[0]!,
          label: m.label,
          label_plural: m.labelPlural,
          path: m.path,
          tenant_scoped: m.tenantScoped,
          has_custom_fields: Object.values(m.fields).some((f) => f.kind === 'custom_fields'),
          // Journal entries can be written on tenant-scoped objects only (src/core/models.ts).
          has_journal: m.tenantScoped,
          has_contacts: withContacts.has(m.name),
          has_related: referencesTo(m).length > 0,
          can: {
            view: true,
            add: m.operations.create && modelAllows(ctx, m, 'add'),
            change: m.operations.update && modelAllows(ctx, m, 'change'),
            delete: m.operations.delete && modelAllows(ctx, m, 'delete'),
          },
        }))
        .sort((a, b) => a.model.localeCompare(b.model));
      return { models };
    },
  });

  app.get('/api/users/me/preferences/', {
    schema: { tags: ['users'], summary: 'Your UI preferences (saved list columns and page sizes)', response: { 200: preferencesSchema } },
    handler: async (req) => {
      if (!req.ctx.user) throw unauthorized();
      const { rows } = await sql<{ data: Record<string, unknown> }>`SELECT data FROM user_preferences WHERE user_id = ${req.ctx.user.id}`.execute(dbOf(req));
      return { preferences: rows[0]?.data ?? {} };
    },
  });

  app.patch('/api/users/me/preferences/', {
    schema: {
      tags: ['users'],
      summary: 'Set or remove UI preferences (keys sent as null are removed)',
      body: {
        type: 'object',
        propertyNames: { pattern: KEY_PATTERN },
        maxProperties: 50,
        additionalProperties: true,
        minProperties: 1,
      },
      response: { 200: preferencesSchema },
    },
    handler: async (req) => {
      if (!req.ctx.user) throw unauthorized();
      const body = req.body as Record<string, unknown>;
      const kept = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null));
      const removed = Object.keys(body).filter((k) => body[k] === null);
      const db = dbOf(req);
      return db.transaction().execute(async (tx) => {
        const { rows } = await sql<{ data: Record<string, unknown> }>`
          INSERT INTO user_preferences (user_id, data) VALUES (${req.ctx.user!.id}, ${JSON.stringify(kept)}::jsonb)
          ON CONFLICT (user_id) DO UPDATE SET data = (user_preferences.data || EXCLUDED.data) - ${removed}::text[], last_updated = now()
          RETURNING data`.execute(tx);
        const data = rows[0]!.data;
        if (Buffer.byteLength(JSON.stringify(data)) > PREFERENCES_MAX_BYTES) {
          // Thrown inside the transaction so the oversized document is rolled back.
          throw badRequest({ non_field_errors: [`Preferences are limited to ${PREFERENCES_MAX_BYTES / 1024} KB; remove some saved layouts first.`] });
        }
        return { preferences: data };
      });
    },
  });
}
