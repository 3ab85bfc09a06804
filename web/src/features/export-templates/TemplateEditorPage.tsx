// /export-templates/new and /export-templates/<id>/editor: the template form with the highlighted source editor,
// save-time errors on their field (and the template's error on its line), Run preview over the unsaved source,
// and Render & download of the saved template.
import { useEffect, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { ApiError, get, patch, post, type FieldErrors } from '../../api/client.ts';
import { useModelInfo, useModels } from '../../api/hooks.ts';
import { paths } from '../../app/paths.ts';
import { FieldShell } from '../../components/fields/FieldInput.tsx';
import { ObjectPicker } from '../../components/fields/ObjectPicker.tsx';
import type { Brief } from '../../api/types.ts';
import { ErrorState, Loading } from '../../components/states.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { Button, PageHeader, inputClass } from '../../components/ui.tsx';
import { CodeEditor } from './CodeEditor.tsx';
import { errorLine } from './highlight.ts';
import { PreviewPanel } from './PreviewPanel.tsx';
import { renderUrl, TEMPLATES_PATH, type ExportTemplate, type PreviewAnswer } from './api.ts';

const MODEL = 'extras.exporttemplate';

interface Draft {
  name: string;
  object_type: string;
  description: string;
  mime_type: string;
  file_extension: string;
  as_attachment: boolean;
  target_path: string;
  template_code: string;
}

const EMPTY: Draft = { name: '', object_type: 'dcim.device', description: '', mime_type: 'text/plain', file_extension: 'txt', as_attachment: true, target_path: '', template_code: '' };

function draftOf(t: ExportTemplate): Draft {
  return { name: t.name, object_type: t.object_type, description: t.description, mime_type: t.mime_type, file_extension: t.file_extension, as_attachment: t.as_attachment, target_path: t.target_path, template_code: t.template_code };
}

/** Types whose templates are config templates: previewed against one chosen device or VM, as a render sees it. */
const SUBJECT_PREVIEW: Record<string, { field: 'device' | 'virtual_machine'; endpoint: string; label: string }> = {
  'dcim.device': { field: 'device', endpoint: '/api/devices/', label: 'device' },
  'virtualization.virtualmachine': { field: 'virtual_machine', endpoint: '/api/virtual-machines/', label: 'virtual machine' },
};

/** A render-time template error of a preview (`{detail: "line N: …", line}`) as the template_code error it is. */
function renderError(err: unknown): string[] | undefined {
  if (!(err instanceof ApiError) || err.status !== 400) return undefined;
  const detail = err.body.detail;
  return typeof detail === 'string' && typeof err.body.line === 'number' ? [detail] : undefined;
}

/** Templates this tab just created: moving from /new to their editor keeps the editor (and its preview) mounted. */
const justCreated = new Set<string>();

export default function TemplateEditorPage() {
  const params = useParams({ strict: false }) as { id?: string };
  const id = params.id ?? null;
  const editorKey = id === null || justCreated.has(id) ? 'new' : id;
  const saved = useQuery({ queryKey: ['object', TEMPLATES_PATH, id], queryFn: () => get<ExportTemplate>(`${TEMPLATES_PATH}${id}/`), enabled: id !== null });
  if (id !== null && saved.isLoading) return <Loading />;
  if (saved.error) return <ErrorState error={saved.error} retry={() => void saved.refetch()} />;
  return <Editor key={editorKey} saved={saved.data ?? null} />;
}

function Editor({ saved }: { saved: ExportTemplate | null }) {
  const navigate = useNavigate();
  const toast = useToast();
  const client = useQueryClient();
  const info = useModelInfo(MODEL);
  const models = useModels();
  const [draft, setDraft] = useState<Draft>(saved ? draftOf(saved) : EMPTY);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [preview, setPreview] = useState<PreviewAnswer | null>(null);
  const [previewErrors, setPreviewErrors] = useState<FieldErrors>({});
  const [subject, setSubject] = useState<Brief | null>(null);
  const subjectPreview = SUBJECT_PREVIEW[draft.object_type];
  const dirty = saved === null || JSON.stringify(draftOf(saved)) !== JSON.stringify(draft);

  // Leaving with unsaved changes loses them: let the browser ask.
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));

  const save = useMutation({
    mutationFn: () => (saved ? patch<ExportTemplate>(`${TEMPLATES_PATH}${saved.id}/`, draft) : post<ExportTemplate>(TEMPLATES_PATH, draft)),
    onSuccess: (row) => {
      setErrors({});
      // The server stores some fields in one form (a target path's slashes): the editor shows what was stored.
      setDraft(draftOf(row));
      client.setQueryData(['object', TEMPLATES_PATH, row.id], row);
      void client.invalidateQueries({ queryKey: ['list', TEMPLATES_PATH] });
      toast.show({ message: `Saved ${row.name}.`, tone: 'success' });
      if (!saved) {
        justCreated.add(row.id);
        void navigate({ to: '/export-templates/$id/editor', params: { id: row.id }, replace: true });
      }
    },
    onError: (err) => setErrors(err instanceof ApiError ? err.fieldErrors : {}),
  });

  const run = useMutation({
    mutationFn: () =>
      post<PreviewAnswer>(`${TEMPLATES_PATH}preview/`, {
        object_type: draft.object_type,
        template_code: draft.template_code,
        ...(subjectPreview && subject ? { [subjectPreview.field]: subject.id } : {}),
      }),
    onSuccess: (answer) => {
      setPreview(answer);
      setPreviewErrors({});
    },
    onError: (err) => {
      setPreview(null);
      const atLine = renderError(err);
      if (atLine) setPreviewErrors({ template_code: atLine });
      else if (err instanceof ApiError && err.status === 400) {
        // A refusal without a field (a render that stopped at a limit) is said above the form.
        const { kind: _kind, ...fields } = err.fieldErrors;
        setPreviewErrors(Object.keys(fields).length ? fields : { non_field_errors: [err.message] });
      } else setPreviewErrors({});
    },
  });

  const codeErrors = errors.template_code ?? previewErrors.template_code;
  const line = codeErrors?.length ? errorLine(codeErrors[0]!) : null;
  // By the models' plural labels ("Devices"), the app added only where two models share one.
  const plural = (m: { label_plural: string }) => m.label_plural.charAt(0).toUpperCase() + m.label_plural.slice(1);
  const typeOptions = (models.data ?? [])
    .filter((m) => m.model !== MODEL)
    .map((m, _i, all) => ({ model: m.model, text: all.filter((o) => o.label_plural === m.label_plural).length > 1 ? `${plural(m)} (${m.app})` : plural(m) }))
    .sort((a, b) => a.text.localeCompare(b.text));
  const otherErrors = { ...previewErrors, ...errors };
  delete otherErrors.template_code;
  const subjectErrors = subjectPreview ? otherErrors[subjectPreview.field] : undefined;
  const general = otherErrors.non_field_errors ?? (save.error && !(save.error instanceof ApiError && Object.keys(save.error.fieldErrors).length) ? [save.error.message] : undefined);

  if (info.isLoading) return <Loading />;
  return (
    <div>
      <nav aria-label="Breadcrumb" className="mb-1 text-sm text-slate-500">
        <Link to={paths.list(MODEL)} className="hover:underline">
          Export templates
        </Link>
        {saved ? (
          <>
            {' / '}
            <Link to={paths.detail(MODEL, saved.id)} className="hover:underline">
              {saved.name}
            </Link>
          </>
        ) : null}
      </nav>
      <PageHeader
        title={saved ? `Edit ${saved.name}` : 'New export template'}
        subtitle={saved ? (dirty ? 'Unsaved changes' : 'Saved') : 'Not saved yet'}
        actions={
          <>
            <Button onClick={() => run.mutate()} disabled={run.isPending || !draft.template_code}>
              {run.isPending ? 'Running…' : 'Run preview'}
            </Button>
            {saved ? (
              <a
                href={renderUrl(saved.id)}
                target={saved.as_attachment ? undefined : '_blank'}
                rel="noreferrer"
                aria-disabled={dirty || undefined}
                title={dirty ? 'Renders the saved version: save your changes first.' : undefined}
                className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium hover:bg-slate-100"
              >
                {saved.as_attachment ? 'Render & download' : 'Render & open'}
              </a>
            ) : null}
            <Button variant="primary" onClick={() => save.mutate()} disabled={save.isPending || (!dirty && saved !== null)}>
              {save.isPending ? 'Saving…' : saved ? 'Save' : 'Create'}
            </Button>
          </>
        }
      />
      {general ? (
        <p role="alert" className="mb-3 rounded border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
          {general.join(' ')}
        </p>
      ) : null}
      <form
        aria-label={saved ? `Edit export template ${saved.name}` : 'Create export template'}
        className="grid gap-4 lg:grid-cols-[18rem_1fr]"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <div className="space-y-3">
          <FieldShell id="et-name" label="Name" required errors={otherErrors.name}>
            <input id="et-name" className={inputClass} value={draft.name} aria-invalid={!!otherErrors.name || undefined} onChange={(e) => set('name', e.target.value)} />
          </FieldShell>
          <FieldShell id="et-type" label="Object type" required errors={otherErrors.object_type} hint="The rows that feed the template.">
            <select
              id="et-type"
              className={inputClass}
              value={draft.object_type}
              aria-invalid={!!otherErrors.object_type || undefined}
              onChange={(e) => {
                set('object_type', e.target.value);
                setSubject(null);
              }}
            >
              {typeOptions.some((m) => m.model === draft.object_type) ? null : <option value={draft.object_type}>{draft.object_type}</option>}
              {typeOptions.map((m) => (
                <option key={m.model} value={m.model}>
                  {m.text}
                </option>
              ))}
            </select>
          </FieldShell>
          <FieldShell id="et-description" label="Description" errors={otherErrors.description}>
            <textarea id="et-description" rows={2} className={inputClass} value={draft.description} onChange={(e) => set('description', e.target.value)} />
          </FieldShell>
          <FieldShell id="et-mime" label="MIME type" errors={otherErrors.mime_type}>
            <input id="et-mime" className={inputClass} value={draft.mime_type} aria-invalid={!!otherErrors.mime_type || undefined} onChange={(e) => set('mime_type', e.target.value)} />
          </FieldShell>
          <FieldShell id="et-ext" label="File extension" errors={otherErrors.file_extension}>
            <input id="et-ext" className={inputClass} value={draft.file_extension} aria-invalid={!!otherErrors.file_extension || undefined} onChange={(e) => set('file_extension', e.target.value)} />
          </FieldShell>
          <FieldShell id="et-target" label="Target path" errors={otherErrors.target_path} hint="Where the file lands on a device, for bundles, e.g. /etc/frr/frr.conf. Empty: <name>.<extension>.">
            <input id="et-target" className={inputClass} value={draft.target_path} aria-invalid={!!otherErrors.target_path || undefined} onChange={(e) => set('target_path', e.target.value)} />
          </FieldShell>
          {subjectPreview ? (
            <FieldShell
              id="et-subject"
              label={`Preview against ${subjectPreview.label}`}
              errors={subjectErrors}
              hint={subject ? `Run preview renders this ${subjectPreview.label}'s config context (device, interfaces, routing…).` : `Without one, Run preview renders the list (objects, count).`}
            >
              <ObjectPicker id="et-subject" endpoint={subjectPreview.endpoint} label={`Preview ${subjectPreview.label}`} invalid={!!subjectErrors} value={subject} nullable onChange={setSubject} />
            </FieldShell>
          ) : null}
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={draft.as_attachment} onChange={(e) => set('as_attachment', e.target.checked)} />
            Download as attachment (otherwise shown inline)
          </label>
        </div>
        <div className="min-w-0 space-y-3">
          <FieldShell id="et-code" label="Template" required>
            <CodeEditor id="et-code" value={draft.template_code} onChange={(v) => set('template_code', v)} errorLine={line} invalid={!!codeErrors} describedBy={codeErrors ? 'et-code-error' : undefined} />
          </FieldShell>
          {codeErrors ? (
            <p id="et-code-error" role="alert" className="text-sm text-red-700" data-testid="template-error">
              {line ? <strong>Line {line}: </strong> : null}
              {codeErrors.map((m) => m.replace(/^line \d+: /, '')).join(' ')}
            </p>
          ) : null}
          {run.isPending ? <Loading label={subjectPreview && subject ? `Rendering ${subject.display}…` : 'Rendering the first 200 rows…'} /> : null}
          {run.error && !(run.error instanceof ApiError && run.error.status === 400) ? <ErrorState error={run.error} /> : null}
          {preview ? <PreviewPanel preview={preview} /> : null}
        </div>
      </form>
    </div>
  );
}
