// HTTP for monitoring beyond the generic CRUD: the legacy monitor action of a service, and the superuser
// endpoints over the workers. Parsing and answer shapes only; rules in service.ts, restarts in supervisor.ts.
import type { FastifyInstance } from 'fastify';
import { requireModelPermission } from '../core/access.ts';
import { badRequest, forbidden, notFound, unauthorized } from '../core/errors.ts';
import type { RequestContext } from '../core/context.ts';
import { dbOf, parseId } from '../core/http.ts';
import { listEnvelopeSchema, wholeList } from '../core/list-envelope.ts';
import { monitorService } from './service.ts';
import { serviceModel } from './models.ts';
import { supervisor } from './supervisor.ts';

const idParams = { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] };
const workerSchema = {
  type: 'object',
  properties: {
    key: { type: 'string' },
    kind: { type: 'string' },
    running: { type: 'boolean' },
    detail: { type: 'string' },
    queues: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, queued: { type: ['integer', 'null'] } } } },
  },
};

function requireSuperuser(ctx: RequestContext): void {
  if (!ctx.user) throw unauthorized();
  if (!ctx.user.isSuperuser) throw forbidden('Only a superuser may see or restart the host services.');
}

export function registerMonitoringRoutes(app: FastifyInstance): void {
  app.post('/api/services/:id/monitor/', {
    schema: {
      tags: ['monitoring'],
      summary: 'Monitor a service (kept for older clients): sets monitored and reconciles its checks',
      description: 'Deprecated: PATCH the service with {"monitored": true} instead.',
      deprecated: true,
      params: idParams,
      response: { 200: { type: 'object', properties: { monitored: { type: 'integer' }, ip: { type: ['string', 'null'] } } } },
    },
    handler: async (req) => {
      requireModelPermission(req.ctx, serviceModel, 'change');
      const outcome = await monitorService(dbOf(req), req.ctx, parseId((req.params as { id: string }).id));
      if (!outcome.ip) throw badRequest("No IP to monitor: set the service's IP or a primary IP on its device or VM.");
      return outcome;
    },
  });

  app.get('/api/system/services/workers/', {
    schema: { tags: ['system'], summary: 'The workers that run checks and jobs, and their queues (superuser)', response: { 200: listEnvelopeSchema(workerSchema) } },
    handler: async (req) => {
      requireSuperuser(req.ctx);
      return wholeList(await supervisor().list());
    },
  });

  app.post('/api/system/services/restart-all/', {
    schema: { tags: ['system'], summary: 'Restart every worker (superuser)', response: { 200: { type: 'object', properties: { restarted: { type: 'array', items: { type: 'string' } } } } } },
    handler: async (req) => {
      requireSuperuser(req.ctx);
      return { restarted: await supervisor().restartAll() };
    },
  });

  app.post('/api/system/services/:key/restart/', {
    schema: {
      tags: ['system'],
      summary: 'Restart one worker (superuser)',
      params: { type: 'object', properties: { key: { type: 'string', maxLength: 100 } }, required: ['key'] },
      response: { 200: { type: 'object', properties: { restarted: { type: 'array', items: { type: 'string' } } } } },
    },
    handler: async (req) => {
      requireSuperuser(req.ctx);
      const key = (req.params as { key: string }).key;
      if (!(await supervisor().restart(key))) throw notFound(`No worker "${key}".`);
      return { restarted: [key] };
    },
  });
}
