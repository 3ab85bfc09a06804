// HTTP for Settings → Backups and the after-upgrade steps (deployment admins: users.manage). Shapes and refusals
// only; the rules live in backup.ts, backup-actions.ts and step-notes.ts.
import { basename } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { can } from '../core/context.ts';
import { badRequest, forbidden, unauthorized } from '../core/errors.ts';
import { dbOf } from '../core/http.ts';
import { listEnvelopeSchema, wholeList } from '../core/list-envelope.ts';
import { BACKUPS_KEPT, listBackups } from './backup.ts';
import { createBackupNow, restoreBackupNow } from './backup-actions.ts';
import { localBackupTarget, localRoot } from '../install/local-target.ts';
import { acknowledgeSteps, StepNotesError, stepNotesStatus, type StepNotesScope } from '../install/step-notes.ts';

const tags = ['system'];
const emptyBody = { type: ['object', 'null'], additionalProperties: false, properties: {} };

const backupSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    file: { type: 'string', description: 'File name in the backups directory' },
    version: { type: 'string', description: 'Cairn version that made it: the only version it can be restored onto' },
    created: { type: 'string', format: 'date-time' },
    size: { type: 'integer', description: 'Bytes' },
    kind: { type: 'string', enum: ['pre-upgrade', 'manual'] },
  },
  required: ['id', 'file', 'version', 'created', 'size', 'kind'],
};

const pendingSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    release: { type: 'string' },
    title: { type: 'string' },
    body: { type: 'string' },
    snippet: { type: 'string' },
    docs: { type: 'string' },
    detectable: { type: 'boolean', description: 'Disappears by itself once the step is done' },
  },
  required: ['id', 'release', 'title', 'body', 'snippet', 'docs', 'detectable'],
};

const stepNotesProperties = {
  version: { type: 'string' },
  pending: { type: 'array', items: pendingSchema },
  acknowledged: {
    type: 'array',
    items: {
      type: 'object',
      properties: { id: { type: 'string' }, acknowledged_by: { type: 'string' }, acknowledged_at: { type: 'string', format: 'date-time' } },
      required: ['id', 'acknowledged_by', 'acknowledged_at'],
    },
  },
  completed: { type: 'array', items: { type: 'string' }, description: 'Steps whose detector found them done' },
};

const ackBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ids: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 100 } },
    all: { type: 'boolean', enum: [true] },
  },
};

function requireAdmin(req: FastifyRequest): void {
  if (!req.ctx.user) throw unauthorized();
  if (!can(req.ctx, 'users.manage')) throw forbidden('users.manage required.');
}

function stepScope(app: FastifyInstance, req: FastifyRequest): StepNotesScope {
  return { db: dbOf(req), version: app.cairnVersion, backend: app.database.backend, root: localRoot() };
}

export function registerUpgradeSystemRoutes(app: FastifyInstance): void {
  app.get('/api/system/backups/', {
    schema: {
      tags,
      summary: 'Backups of this deployment, newest first (the newest three are kept)',
      response: { 200: { ...listEnvelopeSchema(backupSchema), properties: { ...(listEnvelopeSchema(backupSchema).properties as object), kept: { type: 'integer' } } } },
    },
    handler: async (req) => {
      requireAdmin(req);
      const target = localBackupTarget({ databaseUrl: app.config.databaseUrl, dataDir: app.database.dataDir ?? app.config.dataDir }, app.cairnVersion);
      const results = (await listBackups(target.backupsDir)).map((b) => ({ ...b, file: basename(b.file) }));
      return { ...wholeList(results), kept: BACKUPS_KEPT };
    },
  });

  app.post('/api/system/backups/', {
    schema: {
      tags,
      summary: 'Take a backup now: database, data directory and environment file (kind "manual"; the newest three are kept)',
      description: 'Refused (409) while an upgrade or a restore holds the site; 503 when the database dump tool is missing.',
      body: emptyBody,
      response: { 201: backupSchema },
    },
    handler: async (req, reply) => {
      requireAdmin(req);
      const info = await createBackupNow(app);
      reply.code(201);
      return { ...info, file: basename(info.file) };
    },
  });

  app.post('/api/system/backups/:id/restore/', {
    schema: {
      tags,
      summary: 'Restore a backup onto this deployment: replaces the database, the data directory and the environment file',
      description: [
        'Send {"confirm": "<the backup id>"}. Only a backup made by the running version is restored (400 `id` otherwise);',
        'an unknown id is 404; 409 while an upgrade or another restore holds the site, and on the embedded database,',
        'which this web process holds open (stop Cairn and run `cairn backup restore <id> --yes` there).',
        'Sessions and tokens are those of the backup afterwards: you may have to sign in again.',
      ].join(' '),
      params: { type: 'object', properties: { id: { type: 'string', maxLength: 100 } }, required: ['id'] },
      body: { type: 'object', additionalProperties: false, properties: { confirm: { type: 'string', maxLength: 100 } }, required: ['confirm'] },
      response: { 200: { type: 'object', properties: { restored: backupSchema }, required: ['restored'] } },
    },
    handler: async (req) => {
      requireAdmin(req);
      const { id } = req.params as { id: string };
      const { confirm } = req.body as { confirm: string };
      if (confirm !== id) throw badRequest({ confirm: [`Type the backup id (${id}) to confirm that it replaces the database, the data directory and the environment file.`] });
      const info = await restoreBackupNow(app, id);
      return { restored: { ...info, file: basename(info.file) } };
    },
  });

  // The path is /api/system/upgrade/steps/; /api/system/step-notes/ was the first one and stays as an alias.
  registerStepRoutes(app, '/api/system/upgrade/steps/', '');
  registerStepRoutes(app, '/api/system/step-notes/', ' (alias of /api/system/upgrade/steps/, kept for earlier clients)');
}

function registerStepRoutes(app: FastifyInstance, base: string, aliasNote: string): void {
  app.get(base, {
    schema: {
      tags,
      summary: `After-upgrade steps still to do on this deployment${aliasNote}`,
      response: { 200: { type: 'object', properties: stepNotesProperties, required: ['version', 'pending', 'acknowledged', 'completed'] } },
    },
    handler: async (req) => {
      requireAdmin(req);
      return stepNotesStatus(stepScope(app, req));
    },
  });

  app.post(`${base}ack/`, {
    schema: {
      tags,
      summary: `Acknowledge after-upgrade steps: {"ids": [...]} or {"all": true}${aliasNote}`,
      body: ackBody,
      response: {
        200: {
          type: 'object',
          properties: { newly_acknowledged: { type: 'array', items: { type: 'string' } }, ...stepNotesProperties },
          required: ['newly_acknowledged', 'version', 'pending', 'acknowledged', 'completed'],
        },
      },
    },
    handler: async (req) => {
      requireAdmin(req);
      const body = req.body as { ids?: string[]; all?: true };
      if ((body.ids === undefined) === (body.all === undefined)) {
        throw badRequest({ non_field_errors: ['Give either "ids" (a list of step ids) or "all": true.'] });
      }
      const scope = stepScope(app, req);
      let newly: string[];
      try {
        newly = await acknowledgeSteps(scope, body.all ? 'all' : body.ids!, req.ctx.user!.username);
      } catch (err) {
        if (err instanceof StepNotesError) throw badRequest({ ids: [err.message] });
        throw err;
      }
      return { newly_acknowledged: newly, ...(await stepNotesStatus(scope)) };
    },
  });
}
