// A target's extra-variables template, rendered for one deploy in the same sandbox and with the same device
// context as config renders, plus the deploy's own facts. Its output must be a JSON object; anything else
// refuses the deploy before anything is sent (a half-understood variable set is worse than no run).
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { badRequest } from '../core/errors.ts';
import type { Row } from '../core/crud/serialize.ts';
import { loadRenderContexts } from '../templating/device-context.ts';
import { describeTemplateError, templateEnvironment } from '../templating/environment.ts';
import { RenderBudget } from '../templating/render-budget.ts';
import { TemplateError } from '../templating/engine/index.ts';
import { RenderSession } from '../templating/proxies.ts';

export interface DeployFacts {
  run_id: string;
  target: string;
  bundle: string | null;
  files: Record<string, string>;
  note: string;
}

const FIELD = 'extra_vars_template';

export async function renderExtraVars(db: Kysely<DB>, ctx: RequestContext, device: Row, source: string, facts: DeployFacts): Promise<Record<string, unknown>> {
  const session = new RenderSession(db, ctx);
  await session.prepare();
  const loaded = await loadRenderContexts(session, 'device', [device]);
  const context = { ...loaded.contexts.get(String(device.id))!, deploy: facts };
  let output: string;
  try {
    output = await templateEnvironment().compile(source, FIELD).render(context, new RenderBudget().renderOptions());
  } catch (err) {
    if (err instanceof TemplateError) throw badRequest({ [FIELD]: [`The extra variables template failed: ${describeTemplateError(err)}`] });
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch (err) {
    throw badRequest({ [FIELD]: [`The extra variables template must render a JSON object; its output is not JSON (${(err as Error).message}): ${output.slice(0, 200)}`] });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest({ [FIELD]: [`The extra variables template must render a JSON object, not ${Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : typeof parsed}.`] });
  }
  return parsed as Record<string, unknown>;
}
