// Export and config templates come across with their Jinja2 source as NetBox had it. Each is compiled in Cairn's
// engine and rendered once against an empty context, so the report lists the ones to look at before they are
// used: syntax Cairn's engine does not take, or an error on the first render (a filter or tag it lacks).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { createEnvironment, TemplateError } from '../templating/engine/index.ts';
import { inTenant } from '../core/access.ts';

export interface TemplateProblem {
  table: string;
  netboxId: number;
  name: string;
  stage: 'compile' | 'render';
  error: string;
}

export async function checkTemplates(tx: Kysely<DB>, tenantId: string, exportIds?: Map<number, string>, configIds?: Map<number, string>): Promise<{ checked: number; problems: TemplateProblem[] }> {
  const wanted: Array<{ table: string; netboxId: number; id: string }> = [];
  for (const [table, ids] of [['extras_exporttemplate', exportIds], ['extras_configtemplate', configIds]] as const) {
    for (const [netboxId, id] of ids ?? []) wanted.push({ table, netboxId, id });
  }
  if (wanted.length === 0) return { checked: 0, problems: [] };
  const { rows } = await sql<{ id: string; name: string; template_code: string }>`SELECT id, name, template_code FROM export_templates
    WHERE ${inTenant(tenantId)} AND id = ANY(${wanted.map((w) => w.id)}::uuid[])`.execute(tx);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const env = createEnvironment();
  const problems: TemplateProblem[] = [];
  for (const w of wanted) {
    const t = byId.get(w.id);
    if (!t) continue;
    let stage: TemplateProblem['stage'] = 'compile';
    try {
      const template = env.compile(t.template_code, t.name);
      stage = 'render';
      await template.render({});
    } catch (err) {
      const message = err instanceof TemplateError ? `${err.message}${err.lineno ? ` (line ${err.lineno})` : ''}` : (err as Error).message;
      // Undefined names are expected against an empty context: only errors of the engine itself are listed.
      if (stage === 'render' && /undefined|has no attribute|not iterable|None/i.test(message)) continue;
      problems.push({ table: w.table, netboxId: w.netboxId, name: t.name, stage, error: message.split('\n')[0]! });
    }
  }
  return { checked: wanted.length, problems };
}
