// The Template tab of an export template's detail page: the highlighted source, how it is served, and a Run
// preview of the saved template over its first 200 rows.
import { useMutation } from '@tanstack/react-query';
import { get } from '../../api/client.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { ErrorState, Loading } from '../../components/states.tsx';
import { Button } from '../../components/ui.tsx';
import { CodeEditor } from './CodeEditor.tsx';
import { PreviewPanel } from './PreviewPanel.tsx';
import { TEMPLATES_PATH, type ExportTemplate, type PreviewAnswer } from './api.ts';
import { useObjectTypeLabel } from './ObjectTypeCell.tsx';

export default function TemplateTab({ object }: DetailTabProps) {
  const t = object as ExportTemplate;
  const typeLabel = useObjectTypeLabel();
  const run = useMutation({ mutationFn: () => get<PreviewAnswer>(`${TEMPLATES_PATH}${t.id}/preview/`) });
  return (
    <div className="space-y-4">
      <dl className="grid grid-cols-2 gap-3 rounded-lg border border-slate-200 bg-white p-4 text-sm sm:grid-cols-4">
        <div>
          <dt className="text-slate-500">Object type</dt>
          <dd data-object-type={t.object_type}>{typeLabel(t.object_type)}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Lines</dt>
          <dd>{t.line_count}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Served as</dt>
          <dd>
            {t.mime_type}, .{t.file_extension}
          </dd>
        </div>
        <div>
          <dt className="text-slate-500">Delivery</dt>
          <dd>{t.as_attachment ? 'Attachment (download)' : 'Inline (shown in the browser)'}</dd>
        </div>
      </dl>
      <section aria-label="Template source" className="space-y-2">
        <label htmlFor="et-source" className="text-sm font-medium">
          Template source
        </label>
        <CodeEditor id="et-source" value={t.template_code} readOnly errorLine={null} />
      </section>
      <Button onClick={() => run.mutate()} disabled={run.isPending}>
        Run preview
      </Button>
      {run.isPending ? <Loading label="Rendering the first 200 rows…" /> : null}
      {run.error ? <ErrorState error={run.error} retry={() => run.mutate()} /> : null}
      {run.data ? <PreviewPanel preview={run.data} /> : null}
    </div>
  );
}
