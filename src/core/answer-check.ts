// Checks JSON answers against what the OpenAPI document says of them. The document is what client generators and
// scripts are written from: an answer with a value its schema does not allow (a null where an enum is documented)
// or a field it does not list breaks a strict generated client on valid data. With CAIRN_CHECK_ANSWERS=1 (the test
// suite sets it) every 2xx JSON answer of a documented route is checked against its route's schema, every error
// of /api/ against the one error envelope (openapi-contract.ts), and every body a route took against its documented
// body schema; each mismatch is logged and kept for takeAnswerMismatches (the suite fails the test that caused it).
//
// The check is stricter than the document in one way: an object schema that lists its properties and does not say
// `additionalProperties` is read as closed, so a field the route answers but does not document is caught. A schema
// that means to allow more says `additionalProperties: true` (custom fields, a job's free-form result).
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { errorSchema } from './openapi-contract.ts';

export interface AnswerMismatch {
  method: string;
  route: string;
  status: number;
  errors: string[];
}

const mismatches: AnswerMismatch[] = [];

/** The message a mismatch is logged with (tests of `cairn serve` processes look for it in their output). */
export const ANSWER_MISMATCH = 'answer does not match its documented schema';

/** The mismatches seen since the last call, in this process. */
export function takeAnswerMismatches(): AnswerMismatch[] {
  return mismatches.splice(0);
}

export function answerChecksEnabled(): boolean {
  return process.env.CAIRN_CHECK_ANSWERS === '1';
}

// ajv-formats is CommonJS with its function as module.exports.default.
const addFormats = ((addFormatsPlugin as unknown as { default?: typeof addFormatsPlugin }).default ?? addFormatsPlugin) as unknown as (ajv: Ajv) => Ajv;

/**
 * The compiled checks, shared by the apps of one process that document the same shared schemas (the suite builds an
 * app per test file in each worker: compiling every route's schemas again for each took a twentieth of its CPU).
 * Keyed by the shared schemas' text, then by each schema's text: an app whose documents differ gets its own.
 */
const checkers = new Map<string, { ajv: Ajv; compiled: Map<string, ValidateFunction> }>();

function checkerFor(shared: Record<string, unknown>): { ajv: Ajv; compiled: Map<string, ValidateFunction> } {
  const key = JSON.stringify(shared);
  let checker = checkers.get(key);
  if (!checker) {
    // Without ajv's optimising pass over the code it generates: a check is compiled once per process and schema and
    // run on a few answers, so the pass cost more than it saved (420 compiles over dcim, ipam and the generated
    // suites: 2.1 CPU-s instead of 3.0).
    const ajv = new Ajv({ strict: false, allErrors: true, code: { optimize: false } });
    addFormats(ajv);
    for (const schema of Object.values(shared)) ajv.addSchema(closed(schema) as object);
    if (checkers.size >= 4) checkers.delete(checkers.keys().next().value!);
    checkers.set(key, (checker = { ajv, compiled: new Map() }));
  }
  return checker;
}

/** Adds the check to every route of `app` (call before routes are added; shared schemas are read on first use). */
export function registerAnswerCheck(app: FastifyInstance): void {
  let checker: ReturnType<typeof checkerFor> | null = null;
  const bySchema = new WeakMap<object, ValidateFunction>();
  const validatorOf = (schema: object): ValidateFunction => {
    let validate = bySchema.get(schema);
    if (validate) return validate;
    checker ??= checkerFor(app.getSchemas());
    const text = JSON.stringify(schema);
    validate = checker.compiled.get(text);
    if (!validate) checker.compiled.set(text, (validate = checker.ajv.compile(closed(schema) as object)));
    bySchema.set(schema, validate);
    return validate;
  };
  const mismatchesOf = (schema: object, value: unknown, where: string): string[] => {
    const validate = validatorOf(schema);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${where}${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  };
  app.addHook('onSend', async (req, reply, payload) => {
    const status = reply.statusCode;
    const routeSchema = req.routeOptions.schema;
    const responses = routeSchema?.response as Record<string, object> | undefined;
    const route = req.routeOptions.url ?? req.url;
    const errors: string[] = [];
    // A body the route took must be one its documented body schema allows: a generated client cannot send
    // what its types forbid (the generic routes' bodies are checked by the registry, not by that schema).
    const ok = status >= 200 && status < 300;
    if (ok && routeSchema?.body && req.body !== undefined && req.body !== null && typeof req.body === 'object' && !Buffer.isBuffer(req.body)) {
      errors.push(...mismatchesOf(routeSchema.body as object, req.body, 'request body '));
    }
    // Every error of the API is the one envelope; a success is what its route documents. Routes without documented
    // answers are not API operations (the web UI's files, the reference's own pages).
    const failed = status >= 400 && req.url.startsWith('/api/');
    const text = Buffer.isBuffer(payload) ? payload.toString() : typeof payload === 'string' ? payload : null;
    const json = String(reply.getHeader('content-type') ?? '').includes('application/json') && text !== null;
    if (json && (failed || (responses && ok && status !== 204))) {
      // An error is the envelope unless its route documents that answer itself (health's 503 is a health answer).
      const schema = failed ? (responses?.[status] ?? errorSchema) : (responses![status] ?? responses![`${String(status)[0]}xx`] ?? responses!.default);
      if (!schema) errors.push(`${status} is not a documented answer of this route`);
      else errors.push(...mismatchesOf(schema, JSON.parse(text), ''));
    }
    if (errors.length) {
      const mismatch = { method: req.method, route, status, errors };
      // Kept for a test to take; a server run with the check on (by hand) keeps the log lines, not an endless list.
      if (mismatches.length < 1000) mismatches.push(mismatch);
      req.log.error({ mismatch }, ANSWER_MISMATCH);
    }
    return payload;
  });
}

/**
 * The schema with every object that lists properties, and says nothing of others, closed to others. Not inside
 * allOf, whose parts each see only their own properties.
 */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'allOf') out[key] = value;
    else if (key === 'properties') out[key] = Object.fromEntries(Object.entries(value as object).map(([name, s]) => [name, closed(s)]));
    else out[key] = closed(value);
  }
  if ('properties' in out && !('additionalProperties' in out)) out.additionalProperties = false;
  return out;
}
