// Route schemas compiled on first use instead of at start. Fastify compiles every route's validators (Ajv) and
// response serializers (fast-json-stringify) when the app gets ready: with ~680 operations that was ~0.4 s of
// CPU on every server start (and every test's app), while a process serves a few dozen of them. The schemas are
// the same; only the moment they compile moves. (Fastify reads a validator's `errors` after a failed call, so
// the wrapper carries them over.)
import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type Compiled = ((...args: unknown[]) => unknown) & { errors?: unknown };

export function compileOnFirstUse(compile: () => Compiled): Compiled {
  let real: Compiled | undefined;
  const wrapper: Compiled = function (this: unknown, ...args: unknown[]) {
    real ??= compile();
    const out = real.apply(this, args);
    wrapper.errors = real.errors;
    return out;
  };
  return wrapper;
}

/** Wraps a route-compiler factory (Fastify's buildValidator / buildSerializer shape) so each route compiles lazily. */
export function lazyFactory<A extends unknown[], R>(factory: (...args: A) => (route: R) => unknown): (...args: A) => (route: R) => Compiled {
  return (...args: A) => {
    // The factory itself waits too: Ajv's pool keys it by the JSON of every shared schema, for each plugin scope.
    let compileRoute: ((route: R) => unknown) | undefined;
    return (route: R) => compileOnFirstUse(() => (compileRoute ??= factory(...args))(route) as Compiled);
  };
}

/** Fastify's own serializer factory, compiling each response schema on its first answer. */
export const lazySerializerFactory = lazyFactory(SerializerSelector() as (external: unknown, options: unknown) => (route: unknown) => unknown);
