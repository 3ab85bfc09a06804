import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAnswerCheck, takeAnswerMismatches } from './answer-check.ts';

describe('answer check', () => {
  const app = Fastify();
  beforeAll(async () => {
    app.addSchema({ $id: 'Thing', type: 'object', properties: { name: { type: 'string' }, role: { type: ['string', 'null'], enum: ['a', 'b', null] } } });
    registerAnswerCheck(app);
    const answers: Record<string, unknown> = {
      good: { name: 'x', role: null },
      wrongType: { name: 5 },
      undocumented: { name: 'x', extra: true },
      badEnum: { name: 'x', role: 'c' },
    };
    // Sent as built, as Cairn's routes send (answeredAsBuilt): Fastify's own serializer would coerce and drop.
    const asBuilt = { serializerCompiler: () => (data: unknown) => JSON.stringify(data) };
    app.get('/thing/:kind', { ...asBuilt, schema: { response: { 200: { $ref: 'Thing#' } } } }, async (req) => answers[(req.params as { kind: string }).kind]);
    app.get('/open', { ...asBuilt, schema: { response: { 200: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: true } } } }, async () => ({ name: 'x', more: 1 }));
    app.get('/created', { schema: { response: { 200: { type: 'object' } } } }, async (_req, reply) => reply.code(201 as 200).send({}));
    app.get('/plain', async () => ({ anything: 1 }));
    // Taken as sent, as the generic routes take bodies (the registry checks them, not Fastify).
    app.post('/taken', { ...asBuilt, validatorCompiler: () => () => true, schema: { body: { type: 'object', properties: { name: { type: 'string' } } }, response: { 200: { type: 'object' } } } }, async () => ({}));
    app.get('/api/refused/:kind', async (req, reply) =>
      reply.code(400).send((req.params as { kind: string }).kind === 'enveloped' ? { detail: 'No.', name: ['This field is required.'] } : { name: 'This field is required.' }));
    await app.ready();
  });
  afterAll(() => app.close());

  const mismatchOf = async (url: string) => {
    await app.inject({ url });
    return takeAnswerMismatches().flatMap((m) => m.errors);
  };

  it('passes answers as documented, and schemas that say they are open', async () => {
    expect(await mismatchOf('/thing/good')).toEqual([]);
    expect(await mismatchOf('/open')).toEqual([]);
    // Not an API operation: nothing documented, nothing checked.
    expect(await mismatchOf('/plain')).toEqual([]);
  });

  it('names a wrong type, an undocumented field, a value outside the enum and an undocumented status', async () => {
    expect((await mismatchOf('/thing/wrongType')).join()).toContain('/name must be string');
    expect((await mismatchOf('/thing/undocumented')).join()).toContain('"additionalProperty":"extra"');
    expect((await mismatchOf('/thing/badEnum')).join()).toContain('/role must be equal to one of the allowed values');
    expect(await mismatchOf('/created')).toEqual(['201 is not a documented answer of this route']);
  });

  it('names a body the route took that its documented body schema does not allow', async () => {
    const sent = async (payload: object) => {
      await app.inject({ method: 'POST', url: '/taken', payload });
      return takeAnswerMismatches().flatMap((m) => m.errors);
    };
    expect(await sent({ name: 'x' })).toEqual([]);
    expect((await sent({ name: 5 })).join()).toContain('request body /name must be string');
    expect((await sent({ name: 'x', other: 1 })).join()).toContain('request body / must NOT have additional properties');
  });

  it('holds every error of the API to the one envelope: detail, and each field with its list of reasons', async () => {
    expect(await mismatchOf('/api/refused/enveloped')).toEqual([]);
    expect((await mismatchOf('/api/refused/bare')).join()).toContain('/name must be array');
  });
});
