// Errors are values with a message a user can act on. Field errors use the `{field: [messages]}` shape
// (the one NetBox/DRF clients know); everything else `{detail: message}`.

export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    // An answer to the client, not a fault of the server: no stack trace is ever shown or logged for one, and
    // capturing it was most of what a refused request cost (the suite's generated bad-input checks: 0.5 s in 32).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(typeof body.detail === 'string' ? body.detail : JSON.stringify(body));
    Error.stackTraceLimit = limit;
  }
}

export function badRequest(errors: FieldErrors | string): ApiError {
  return new ApiError(400, typeof errors === 'string' ? { detail: errors } : errors);
}

export function fieldError(field: string, message: string): ApiError {
  return new ApiError(400, { [field]: [message] });
}

export function notFound(detail = 'Not found.'): ApiError {
  return new ApiError(404, { detail });
}

export function unauthorized(detail = 'Authentication credentials were not provided.'): ApiError {
  return new ApiError(401, { detail });
}

export function forbidden(detail = 'You do not have permission to perform this action.'): ApiError {
  return new ApiError(403, { detail });
}

export function conflict(errors: FieldErrors | string): ApiError {
  return new ApiError(409, typeof errors === 'string' ? { detail: errors } : errors);
}

/** A 400 about one item of a list body, its fields renamed `[i].field` so the caller knows which item failed. */
export function namingItem(err: unknown, index: number): unknown {
  if (!(err instanceof ApiError) || err.status !== 400) return err;
  return badRequest(Object.fromEntries(Object.entries(err.body).map(([k, v]) => [`[${index}].${k}`, v as string[]])));
}

/** Collects field errors so a request reports every bad field at once. */
export class ErrorCollector {
  /** Keyed by names the client sent (a body's `constructor` is a field to report, not Object's member). */
  readonly errors: FieldErrors = Object.create(null) as FieldErrors;
  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }
  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }
  throwIfAny(): void {
    if (!this.empty) throw badRequest(this.errors);
  }
}
