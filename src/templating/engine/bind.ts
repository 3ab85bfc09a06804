// Binds positional and keyword arguments to a built-in's declared parameters, Python style.
import { typeError } from './errors.ts';
import type { FilterImpl, RenderState } from './state.ts';
import { EMPTY_KWARGS, type Kwargs } from './values.ts';

export const REQUIRED: unique symbol = Symbol('required');
export type ParamSpec = (string | [string, unknown])[];

export function bindArgs(fname: string, spec: ParamSpec, args: unknown[], kwargs: Kwargs, varargs = false): unknown[] {
  const names = spec.map((p) => (typeof p === 'string' ? p : p[0]));
  if (args.length > names.length && !varargs)
    throw typeError(`${fname}() takes at most ${names.length} argument(s) (${args.length} given)`);
  const out: unknown[] = names.map((_, i) => (i < args.length ? args[i] : typeof spec[i] === 'string' ? REQUIRED : (spec[i] as [string, unknown])[1]));
  for (const k of Object.keys(kwargs)) {
    const i = names.indexOf(k);
    if (i === -1) throw typeError(`${fname}() got an unexpected keyword argument '${k}'`);
    if (i < args.length) throw typeError(`${fname}() got multiple values for argument '${k}'`);
    out[i] = kwargs[k];
  }
  const missing = out.findIndex((v) => v === REQUIRED);
  if (missing !== -1) throw typeError(`${fname}() missing required argument '${names[missing]}'`);
  if (varargs && args.length > names.length) out.push(...args.slice(names.length));
  return out;
}

/** Declares a built-in filter/test: `impl` receives the value and its bound parameters in declaration order. */
export function builtin(
  name: string,
  spec: ParamSpec,
  impl: (state: RenderState, value: unknown, ...params: unknown[]) => unknown,
): FilterImpl {
  if (spec.length === 0)
    return (state, value, args, kwargs) => {
      if (args.length || kwargs !== EMPTY_KWARGS) bindArgs(name, spec, args, kwargs);
      return impl(state, value);
    };
  const n = spec.length;
  const defaults = spec.map((p) => (typeof p === 'string' ? REQUIRED : p[1]));
  const required = defaults.some((d) => d === REQUIRED);
  if (n <= 4 && !required)
    // Hot path for the common filters: positional arguments only, no array spread, no binding tables.
    return (state, value, args, kwargs) => {
      if (kwargs !== EMPTY_KWARGS || args.length > n) return impl(state, value, ...bindArgs(name, spec, args, kwargs));
      const a = args.length;
      return impl(
        state,
        value,
        a > 0 ? args[0] : defaults[0],
        a > 1 ? args[1] : defaults[1],
        a > 2 ? args[2] : defaults[2],
        a > 3 ? args[3] : defaults[3],
      );
    };
  return (state, value, args, kwargs) => impl(state, value, ...bindArgs(name, spec, args, kwargs));
}
