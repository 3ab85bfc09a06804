// HTTP for compliance beyond the rules' generic CRUD: violations, per-object compliance, on-demand evaluation.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireModelPermission } from '../core/access.ts';
import { ErrorCollector, unauthorized } from '../core/errors.ts';
import { dbOf, parseId, registryValidated, requestUrl } from '../core/http.ts';
import { pagedList } from '../core/list-envelope.ts';
import { loadScopedRow } from '../core/crud/write.ts';
import { deviceModel } from '../dcim/models.ts';
import { virtualMachineModel } from '../virtualization/models.ts';
import { complianceRuleModel } from './models.ts';
import { OBJECT_TYPES, evaluateRules, listViolations } from './service.ts';
import { runRecordedJob } from '../jobs/run.ts';

const tags = ['compliance'];
const anyObject = { type: 'object', additionalProperties: true };
const idParams = { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] };

function tenantOf(req: FastifyRequest): string {
  if (!req.ctx.user) throw unauthorized();
  requireModelPermission(req.ctx, complianceRuleModel, 'view');
  return req.ctx.tenantId ?? '00000000-0000-0000-0000-000000000000';
}

function pageArg(raw: unknown, name: string, fallback: number, max: number, errors: ErrorCollector): number {
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || Number(raw) > max) {
    errors.add(name, `Expected a whole number from 0 to ${max}.`);
    return fallback;
  }
  return Number(raw);
}

export function registerComplianceRoutes(app: FastifyInstance): void {
  app.get('/api/compliance/violations/', {
    ...registryValidated,
    schema: {
      tags,
      summary: 'Open violations of the tenant (filters rule, object_type, object_id; limit/offset)',
      querystring: { type: 'object', properties: { rule: { type: 'string' }, object_type: { type: 'string' }, object_id: { type: 'string' }, limit: { type: 'integer' }, offset: { type: 'integer' } } },
      response: { 200: anyObject },
    },
    handler: async (req) => {
      const tenantId = tenantOf(req);
      const q = req.query as Record<string, unknown>;
      const errors = new ErrorCollector();
      const limit = pageArg(q.limit, 'limit', 50, 1000, errors);
      const offset = pageArg(q.offset, 'offset', 0, Number.MAX_SAFE_INTEGER, errors);
      if (q.object_type !== undefined && !(OBJECT_TYPES as readonly string[]).includes(String(q.object_type))) errors.add('object_type', `One of ${OBJECT_TYPES.join(', ')}.`);
      errors.throwIfAny();
      const { count, results } = await listViolations(dbOf(req), tenantId, {
        rule: q.rule === undefined ? undefined : parseId(q.rule, 'rule'),
        objectType: q.object_type === undefined ? undefined : String(q.object_type),
        objectId: q.object_id === undefined ? undefined : parseId(q.object_id, 'object_id'),
        limit,
        offset,
      });
      return pagedList(requestUrl(req), { count, limit, offset }, results);
    },
  });
  app.post('/api/compliance/evaluate/', {
    ...registryValidated,
    schema: { tags, summary: 'Evaluate every rule of the tenant now', response: { 200: anyObject } },
    handler: async (req) => {
      if (!req.ctx.user) throw unauthorized();
      requireModelPermission(req.ctx, complianceRuleModel, 'change');
      const tenantId = req.ctx.tenantId ?? '00000000-0000-0000-0000-000000000000';
      return runRecordedJob(dbOf(req), { kind: 'compliance.evaluate', tenantId: req.ctx.tenantId, startedBy: `user:${req.ctx.user.username}` },
        () => evaluateRules(dbOf(req), tenantId), (r) => `${r.rules} rules evaluated, ${r.violations} violations`);
    },
  });
  for (const model of [deviceModel, virtualMachineModel]) {
    app.get(`${model.path}:id/compliance/`, {
      ...registryValidated,
      schema: { tags, summary: `Open violations of one ${model.label}`, params: idParams, response: { 200: anyObject } },
      handler: async (req) => {
        if (!req.ctx.user) throw unauthorized();
        requireModelPermission(req.ctx, model, 'view');
        const id = parseId((req.params as { id: string }).id);
        await loadScopedRow(dbOf(req), req.ctx, model, id);
        const tenantId = tenantOf(req);
        const { count, results } = await listViolations(dbOf(req), tenantId, { objectId: id, limit: 1000, offset: 0 });
        return { object_type: model.name, object_id: id, compliant: count === 0, count, violations: results };
      },
    });
  }
}
