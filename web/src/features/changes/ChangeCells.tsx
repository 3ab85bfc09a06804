// Cells of the change list: the kind of object by its label (Device, not dcim.device), and the object by name,
// linked while it still exists.
import { Link } from '@tanstack/react-router';
import { useModels } from '../../api/hooks.ts';
import type { CellRendererProps } from '../../app/extensions.ts';
import { paths } from '../../app/paths.ts';

function useModelLabel(name: unknown): string {
  const models = useModels();
  const info = typeof name === 'string' ? models.data?.find((m) => m.model === name) : undefined;
  if (info) return info.label.charAt(0).toUpperCase() + info.label.slice(1);
  // A kind the caller may not see (or one since removed): its last word, never the code.
  const last = typeof name === 'string' ? (name.split('.').pop() ?? '') : '';
  return last ? last.charAt(0).toUpperCase() + last.slice(1) : '—';
}

export function ObjectTypeCell({ value }: CellRendererProps) {
  return <span data-object-type={String(value)}>{useModelLabel(value)}</span>;
}

export function ChangedObjectCell({ row, value }: CellRendererProps) {
  const models = useModels();
  const type = String(row.object_type ?? '');
  const id = typeof row.object_id === 'string' ? row.object_id : '';
  const known = models.data?.some((m) => m.model === type);
  const text = typeof value === 'string' && value ? value : '—';
  // A deleted object has no page to open.
  if (!known || !id || row.action === 'delete') return <span>{text}</span>;
  return (
    <Link to={paths.detail(type, id)} className="text-sky-700 hover:underline">
      {text}
    </Link>
  );
}

/** The object a journal entry is written on, as a link by its kind (the entry keeps only the object's id). */
export function JournalObjectCell({ row }: CellRendererProps) {
  const models = useModels();
  const type = String(row.object_type ?? '');
  const label = useModelLabel(type);
  const id = typeof row.object_id === 'string' ? row.object_id : '';
  if (!id || !models.data?.some((m) => m.model === type)) return <span>—</span>;
  return (
    <Link to={paths.detail(type, id)} className="text-sky-700 hover:underline">
      Open the {label.toLowerCase()}
    </Link>
  );
}
