// The one template environment export templates (and later config renders) compile and render with:
// trim_blocks and lstrip_blocks on, as the seed system and NetBox users' templates expect, with Cairn's address
// filters and tests. An Environment holds no per-render state, so one instance serves every request.
import { createEnvironment, type Environment, TemplateError } from './engine/index.ts';

let shared: Environment | null = null;

export function templateEnvironment(): Environment {
  // No limit of its own on output or time beyond the engine's hard ceilings: each render request passes what is
  // left of its budget (render-budget.ts), which the configuration sets.
  shared ??= createEnvironment({ trimBlocks: true, lstripBlocks: true, timeBudgetMs: 24 * 3600_000, maxOutputBytes: 2 ** 40 });
  return shared;
}

/** `line N: message`, the form save-time and render-time errors are reported in. */
export function describeTemplateError(err: TemplateError): string {
  return err.lineno !== undefined ? `line ${err.lineno}: ${err.message}` : err.message;
}

/** Compiles `source`; returns the error text for a `template_code` field error, or null when it compiles. */
export function compileError(source: string): string | null {
  try {
    templateEnvironment().compile(source, 'template_code');
    return null;
  } catch (err) {
    if (err instanceof TemplateError) return describeTemplateError(err);
    throw err;
  }
}
