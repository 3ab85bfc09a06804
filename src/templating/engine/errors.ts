// Typed template errors. Every failure of compile() or render() surfaces as a TemplateError so callers
// (API, CLI, bundle renderer) can map it to a status without guessing at raw JavaScript errors.
//
// Mapping to Python Jinja2 exceptions (the compatibility corpus compares kinds):
//   TemplateSyntaxError / TemplateAssertionError (unknown filter/test)  -> 'syntax'
//   UndefinedError                                                       -> 'undefined'
//   SecurityError (calling a blocked attribute, mutating context data)  -> 'security'
//   TypeError, ValueError, ZeroDivisionError, IndexError, KeyError,
//   AttributeError, TemplateRuntimeError raised by built-ins            -> 'type'
//   OverflowError from the sandboxed range() and our own size caps     -> 'limit'
//   wall-clock budget exceeded                                           -> 'timeout'
//   AbortSignal fired                                                    -> 'cancelled'
//   an exception thrown by a registered host filter/function/object     -> 'runtime'
//   include / import / extends (a template is one source)               -> 'unavailable'
export type TemplateErrorKind =
  | 'syntax'
  | 'undefined'
  | 'type'
  | 'security'
  | 'limit'
  | 'timeout'
  | 'cancelled'
  | 'runtime'
  | 'unavailable';

export interface TemplateErrorOptions {
  lineno?: number;
  column?: number;
  templateName?: string;
  cause?: unknown;
}

export class TemplateError extends Error {
  kind: TemplateErrorKind;
  lineno?: number;
  column?: number;
  templateName?: string;

  constructor(kind: TemplateErrorKind, message: string, options: TemplateErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TemplateError';
    this.kind = kind;
    this.lineno = options.lineno;
    this.column = options.column;
    this.templateName = options.templateName;
  }

  /** "name:line:col: message" style description for command-line output. */
  describe(): string {
    const where = [this.templateName ?? '<template>'];
    if (this.lineno !== undefined) where.push(String(this.lineno));
    if (this.lineno !== undefined && this.column !== undefined) where.push(String(this.column));
    return `${where.join(':')}: ${this.message}`;
  }
}

export class TemplateSyntaxError extends TemplateError {
  constructor(message: string, lineno: number, column: number, templateName?: string) {
    super('syntax', message, { lineno, column, templateName });
    this.name = 'TemplateSyntaxError';
  }
}

/** Internal shorthands used by the runtime: line numbers are attached by the statement that catches them. */
export function typeError(message: string): TemplateError {
  return new TemplateError('type', message);
}
export function undefinedError(message: string): TemplateError {
  return new TemplateError('undefined', message);
}
export function securityError(message: string): TemplateError {
  return new TemplateError('security', message);
}
export function limitError(message: string): TemplateError {
  return new TemplateError('limit', message);
}

/**
 * Converts anything thrown during a render into a TemplateError, attaching the line of the statement that was
 * running. A RangeError from V8 ("Maximum call stack size exceeded") becomes a limit error: deeply nested
 * templates must fail cleanly rather than crash the caller.
 */
export function toTemplateError(err: unknown, lineno?: number, templateName?: string): TemplateError {
  let te: TemplateError;
  if (err instanceof TemplateError) te = err;
  // includes(), not a regex: near the stack limit compiling a regex overflows too ("Invalid regular expression")
  else if (err instanceof RangeError && err.message.includes('call stack'))
    te = new TemplateError('limit', 'template too deeply nested (stack exhausted)', { cause: err });
  else if (err instanceof RangeError && /string length|array length/i.test(err.message))
    te = new TemplateError('limit', 'value too large', { cause: err });
  else if (err instanceof RangeError) te = new TemplateError('type', err.message, { cause: err });
  else if (err instanceof Error) te = new TemplateError('runtime', err.message, { cause: err });
  else te = new TemplateError('runtime', String(err));
  if (te.lineno === undefined && lineno !== undefined) te.lineno = lineno;
  if (te.templateName === undefined && templateName !== undefined) te.templateName = templateName;
  return te;
}
