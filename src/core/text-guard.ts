// Control characters are refused at the boundary, once, for every route: PostgreSQL cannot store NUL in text
// (a NUL in `?q=` or in a JSON string used to reach it and answer 500), and no other C0 control character
// belongs in a name, a filter or an identifier. Text in a request body may hold tab, CR and LF.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest, type FieldErrors } from './errors.ts';

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ANY_CONTROL = /[\u0000-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex -- as above, less the whitespace multi-line text holds
const BODY_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

function describe(text: string, re: RegExp): string {
  const c = text.match(re)![0]!.charCodeAt(0);
  const name = c === 0 ? 'a NUL character (U+0000)' : `a control character (U+${c.toString(16).toUpperCase().padStart(4, '0')})`;
  return `Contains ${name}: control characters are not allowed${re === BODY_CONTROL ? ' (tab, CR and LF are)' : ''}.`;
}

/** Walks a parsed value; records the first bad string under each path (object keys are checked too). */
function walk(value: unknown, path: string, re: RegExp, errors: FieldErrors, depth = 0): void {
  if (typeof value === 'string') {
    if (re.test(value)) errors[path || 'non_field_errors'] ??= [describe(value, re)];
    return;
  }
  if (typeof value !== 'object' || value === null || depth > 64 || Buffer.isBuffer(value)) return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => walk(v, `${path}[${i}]`, re, errors, depth + 1));
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    const at = path ? `${path}.${k}` : k;
    if (re.test(k)) errors[at] ??= [describe(k, re)];
    else walk(v, at, re, errors, depth + 1);
  }
}

/** The field errors of a request's query, path parameters and body, or null when they are clean. */
export function controlCharacterErrors(req: Pick<FastifyRequest, 'query' | 'params' | 'body'>): FieldErrors | null {
  const errors: FieldErrors = {};
  walk(req.query, '', ANY_CONTROL, errors);
  walk(req.params, '', ANY_CONTROL, errors);
  walk(req.body, '', BODY_CONTROL, errors);
  return Object.keys(errors).length ? errors : null;
}

async function guard(req: FastifyRequest): Promise<void> {
  const errors = controlCharacterErrors(req);
  if (errors) throw badRequest(errors);
}

/**
 * Adds the guard to every route's preValidation, after the route's own hooks there: a route that checks
 * permission in preValidation answers 403 before this answers 400.
 */
export function registerControlCharacterGuard(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const own = route.preValidation === undefined ? [] : Array.isArray(route.preValidation) ? route.preValidation : [route.preValidation];
    route.preValidation = [...own, guard];
  });
}
