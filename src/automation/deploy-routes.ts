// HTTP for deploys: POST /api/devices/<id>/deploy/. Parsing and answer shapes only; the rules are in deploy.ts.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { modelAllows } from '../core/access.ts';
import { forbidden } from '../core/errors.ts';
import { answeredAsBuilt, checkedFirst, dbOf, originOf, parseId } from '../core/http.ts';
import { requireModel } from '../core/registry.ts';
import { serializeOne } from '../core/crud/read.ts';
import { schemaName } from '../core/crud/schemas.ts';
import { deployDevice } from './deploy.ts';
import { deployRunModel } from './deploy-models.ts';

/** A deploy run, as /api/deploy-runs/<id>/ shows it. */
const runSchema = { $ref: `${schemaName(deployRunModel)}#` };

export function registerDeployRoutes(app: FastifyInstance): void {
  app.post('/api/devices/:id/deploy/', {
    ...answeredAsBuilt,
    schema: {
      tags: ['automation'],
      summary: 'Launch a run on an automation target for this device (needs device.deploy)',
      description: [
        'Body `{target, bundle?, note?}`: target is an automation target id or name; bundle a config bundle name or id (or `role`), rendered now so',
        'the run gets the file hashes. The target is called through the SSRF guard with extra variables `cairn_deploy_run`, `cairn_device` (id, name,',
        'primary_ip), `cairn_bundle`, `cairn_files` ({path: sha256}) and `cairn_note`, merged over the target\'s own extra_vars.',
        'A bad target, bundle or device is a 400/404 and records nothing. 201: the run. 502: the system refused or could not be reached; the run is',
        'recorded as failed and returned under `deploy_run`.',
      ].join('\n'),
      params: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] },
      body: Type.Object(
        {
          target: Type.String({ minLength: 1, description: 'An automation target id or name.' }),
          bundle: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()], { description: "A bundle name or id, or 'role'." })),
          note: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
        },
        { additionalProperties: false },
      ),
      response: {
        201: runSchema,
        502: { type: 'object', properties: { detail: { type: 'string' }, deploy_run: runSchema } },
      },
    },
    // Permission before input: a caller who may not deploy gets 403 whatever it sent.
    preParsing: checkedFirst((req) => {
      if (!modelAllows(req.ctx, requireModel('dcim.device'), 'deploy')) throw forbidden('You do not have permission to deploy devices (device.deploy).');
    }),
    handler: async (req, reply) => {
      const db = dbOf(req);
      const { run, launchError } = await deployDevice(db, req.ctx, parseId((req.params as { id: string }).id), req.body);
      const shown = await serializeOne(db, req.ctx, deployRunModel, run, originOf(req));
      if (launchError !== null) return reply.code(502).send({ detail: launchError, deploy_run: shown });
      return reply.code(201).send(shown);
    },
  });
}
