// Import beside Add on every list: rows pasted or read from a file (CSV with a header row of field names, JSON or
// YAML), checked by the server first (a dry run: what would be created and updated, or each refused row with its
// field and message), shown with the first rows, and written only when asked (all rows or none).
import { useEffect, useMemo, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, post } from '../../api/client.ts';
import type { ModelInfo } from '../../api/types.ts';
import { Dialog, DialogActions } from '../../components/Dialog.tsx';
import { ErrorState } from '../../components/states.tsx';

type Format = 'csv' | 'json' | 'yaml';
interface ImportResult {
  created: number;
  updated: number;
  ids: string[];
  dry_run: boolean;
}
interface RowError {
  row: number;
  field: string;
  message: string;
}

const PREVIEW_ROWS = 5;

function formatOf(fileName: string): Format {
  if (/\.ya?ml$/i.test(fileName)) return 'yaml';
  if (/\.json$/i.test(fileName)) return 'json';
  return 'csv';
}

/** The lines of a CSV as cells, for the preview (quoted commas kept together; one line per row). */
function previewCsv(text: string): string[][] {
  return text
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .map((line) => (line.match(/("([^"]|"")*"|[^,]*)(,|$)/g) ?? []).map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '').replace(/""/g, '"')).slice(0, -1));
}

export function ImportDialog({ model, open, onClose }: { model: ModelInfo; open: boolean; onClose: () => void }) {
  const client = useQueryClient();
  const [format, setFormat] = useState<Format>('csv');
  const [data, setData] = useState('');
  const [checked, setChecked] = useState<ImportResult | null>(null);
  const [rowErrors, setRowErrors] = useState<RowError[]>([]);
  useEffect(() => {
    setChecked(null);
    setRowErrors([]);
  }, [data, format, open]);
  const send = (dryRun: boolean) => post<ImportResult>(`${model.path}import/`, { format, data, dry_run: dryRun });
  const onError = (err: unknown) => {
    if (err instanceof ApiError && Array.isArray(err.body.errors)) setRowErrors(err.body.errors as RowError[]);
  };
  const check = useMutation({ mutationFn: () => send(true), onSuccess: setChecked, onError });
  const run = useMutation({
    mutationFn: () => send(false),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['list', model.path] });
      onClose();
    },
    onError,
  });
  const preview = useMemo(() => (format === 'csv' ? previewCsv(data) : []), [data, format]);
  const otherError = [check.error, run.error].find((e) => e && !(e instanceof ApiError && Array.isArray(e.body.errors)));
  return (
    <Dialog
      open={open}
      wide
      title={`Import ${model.label_plural}`}
      onClose={onClose}
      footer={
        checked ? (
          <DialogActions onCancel={onClose} onConfirm={() => run.mutate()} confirmLabel={`Import ${checked.created + checked.updated} rows`} busyLabel="Importing…" pending={run.isPending} />
        ) : (
          <DialogActions onCancel={onClose} onConfirm={() => check.mutate()} confirmLabel="Check" busyLabel="Checking…" pending={check.isPending} disabled={data.trim() === ''} />
        )
      }
    >
      <div className="space-y-3 text-sm">
        <p className="text-slate-600">
          A header row of field names (CSV), or a list of objects (JSON, YAML). Related objects by id, number, slug or name; an <code>id</code> column
          updates existing {model.label_plural}. Nothing is written until every row passes.
        </p>
        <div className="flex flex-wrap items-center gap-3">
          <label className="flex items-center gap-2">
            Format
            <select aria-label="Format" className="rounded border border-slate-300 px-2 py-1" value={format} onChange={(e) => setFormat(e.target.value as Format)}>
              <option value="csv">CSV</option>
              <option value="json">JSON</option>
              <option value="yaml">YAML</option>
            </select>
          </label>
          <input
            type="file"
            aria-label="File"
            accept=".csv,.json,.yaml,.yml,text/csv,application/json"
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (!file) return;
              setFormat(formatOf(file.name));
              void file.text().then(setData);
            }}
          />
        </div>
        <textarea aria-label="Rows" className="h-40 w-full rounded border border-slate-300 p-2 font-mono text-xs" value={data} onChange={(e) => setData(e.target.value)} placeholder="name,slug&#10;…" />
        {preview.length > 1 ? (
          <div className="overflow-x-auto" data-testid="import-preview">
            <table className="min-w-full text-xs">
              <thead>
                <tr>
                  <th className="px-2 text-left text-slate-500">Row</th>
                  {preview[0]!.map((h, i) => (
                    <th key={i} className="px-2 text-left">
                      {h}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {/* The first rows, and every refused one wherever it is. */}
                {preview.slice(1).map((cells, r) => (r < PREVIEW_ROWS || rowErrors.some((e) => e.row === r + 1) ? (
                  <tr key={r} className={rowErrors.some((e) => e.row === r + 1) ? 'bg-red-50 text-red-800' : ''}>
                    <td className="px-2 text-slate-500">{r + 1}</td>
                    {cells.map((c, i) => (
                      <td key={i} className="px-2">
                        {c}
                      </td>
                    ))}
                  </tr>
                ) : null))}
              </tbody>
            </table>
          </div>
        ) : null}
        {rowErrors.length ? (
          <div data-testid="import-errors">
            <p className="font-medium text-red-700">Nothing was written: {rowErrors.length === 1 ? 'one row needs' : `${rowErrors.length} problems need`} fixing.</p>
            <ul className="ml-5 list-disc text-red-700">
              {rowErrors.map((e, i) => (
                <li key={i}>
                  Row {e.row}, {e.field}: {e.message}
                </li>
              ))}
            </ul>
          </div>
        ) : null}
        {checked ? (
          <p data-testid="import-checked" className="font-medium text-emerald-700">
            Ready: {checked.created} to create, {checked.updated} to update.
          </p>
        ) : null}
        {otherError ? <ErrorState error={otherError} /> : null}
      </div>
    </Dialog>
  );
}
