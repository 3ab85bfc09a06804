// HTTP for compliance beyond the rules' generic CRUD: violations, per-object compliance, on-demand evaluation.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireModelPermission } from '../core/access.ts';
import { unauthorized } from '../core/errors.ts';
import { Type } from 'typebox';
import { answeredAsBuilt, checkedFirst, dbOf, parseId, requestUrl } from '../core/http.ts';
import { listEnvelopeSchema, pagedList } from '../core/list-envelope.ts';
import { loadScopedRow } from '../core/crud/write.ts';
import { deviceModel } from '../dcim/models.ts';
import { virtualMachineModel } from '../virtualization/models.ts';
import { complianceRuleModel } from './models.ts';
import { OBJECT_TYPES, ViolationAnswer, applyingRules, evaluateRules, evaluationSummary, listViolations, type ObjectType } from './service.ts';
import { runRecordedJob } from '../jobs/run.ts';

const tags = ['compliance'];
const EvaluateAnswer = Type.Object(
  { rules: Type.Integer({ description: 'Enabled rules evaluated.' }), violations: Type.Integer({ description: 'Violations open after the run.' }) },
  { additionalProperties: false },
);
const ObjectCompliance = Type.Object(
  {
    object_type: Type.String(),
    object_id: Type.String({ format: 'uuid' }),
    state: Type.Union([Type.Literal('compliant'), Type.Literal('violations'), Type.Literal('no_rules')]),
    compliant: Type.Boolean({ description: 'True only when some rule judged the object and none fails.' }),
    rules: Type.Integer({ description: 'Enabled rules that judge this type of object.' }),
    count: Type.Integer({ description: 'Open violations.' }),
    violations: Type.Array(ViolationAnswer),
  },
  { additionalProperties: false },
);
const idParams = Type.Object({ id: Type.String() });
const ViolationsQuery = Type.Object(
  {
    rule: Type.Optional(Type.String({ description: 'A compliance rule id.' })),
    object_type: Type.Optional(Type.String({ enum: [...OBJECT_TYPES] })),
    object_id: Type.Optional(Type.String({ description: 'A device or virtual machine id.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  },
  { additionalProperties: false },
);

function tenantOf(req: FastifyRequest): string {
  if (!req.ctx.user) throw unauthorized();
  requireModelPermission(req.ctx, complianceRuleModel, 'view');
  return req.ctx.tenantId ?? '00000000-0000-0000-0000-000000000000';
}

export function registerComplianceRoutes(app: FastifyInstance): void {
  app.get('/api/compliance/violations/', {
    ...answeredAsBuilt,
    schema: { tags, summary: 'Open violations of the tenant (filters rule, object_type, object_id; limit/offset)', querystring: ViolationsQuery, response: { 200: listEnvelopeSchema(ViolationAnswer) } },
    preParsing: checkedFirst((req) => void tenantOf(req)),
    handler: async (req) => {
      const tenantId = tenantOf(req);
      const q = req.query as { rule?: string; object_type?: string; object_id?: string; limit: number; offset: number };
      const { count, results } = await listViolations(dbOf(req), tenantId, {
        rule: q.rule === undefined ? undefined : parseId(q.rule, 'rule'),
        objectType: q.object_type,
        objectId: q.object_id === undefined ? undefined : parseId(q.object_id, 'object_id'),
        limit: q.limit,
        offset: q.offset,
      });
      return pagedList(requestUrl(req), { count, limit: q.limit, offset: q.offset }, results);
    },
  });
  app.post('/api/compliance/evaluate/', {
    ...answeredAsBuilt,
    schema: { tags, summary: 'Evaluate every rule of the tenant now', response: { 200: EvaluateAnswer } },
    preParsing: checkedFirst((req) => {
      if (!req.ctx.user) throw unauthorized();
      requireModelPermission(req.ctx, complianceRuleModel, 'change');
    }),
    handler: async (req) => {
      if (!req.ctx.user) throw unauthorized();
      const tenantId = req.ctx.tenantId ?? '00000000-0000-0000-0000-000000000000';
      return runRecordedJob(dbOf(req), { kind: 'compliance.evaluate', tenantId: req.ctx.tenantId, startedBy: `user:${req.ctx.user.username}` },
        () => evaluateRules(dbOf(req), tenantId), evaluationSummary);
    },
  });
  for (const model of [deviceModel, virtualMachineModel]) {
    app.get(`${model.path}:id/compliance/`, {
      ...answeredAsBuilt,
      schema: {
        tags,
        summary: `Open violations of one ${model.label}`,
        description: 'state: compliant (rules apply, none fails), violations, or no_rules (no enabled rule judges this type: nothing to be compliant with).',
        params: idParams,
        response: { 200: ObjectCompliance },
      },
      preParsing: checkedFirst((req) => {
        if (!req.ctx.user) throw unauthorized();
        requireModelPermission(req.ctx, model, 'view');
        tenantOf(req);
      }),
      handler: async (req) => {
        const id = parseId((req.params as { id: string }).id);
        await loadScopedRow(dbOf(req), req.ctx, model, id);
        const tenantId = tenantOf(req);
        const { count, results } = await listViolations(dbOf(req), tenantId, { objectId: id, limit: 1000, offset: 0 });
        const rules = await applyingRules(dbOf(req), tenantId, model.name as ObjectType);
        // Compliant only when some rule judged the object: with no rule there is nothing to be compliant with.
        const state = count > 0 ? 'violations' : rules > 0 ? 'compliant' : 'no_rules';
        return { object_type: model.name, object_id: id, state, compliant: state === 'compliant', rules, count, violations: results };
      },
    });
  }
}
