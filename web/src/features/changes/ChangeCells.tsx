// Cells of the change list: the kind of object by its label (Device, not dcim.device), and the object by name,
// linked while it still exists.
import { Link } from '@tanstack/react-router';
import { useModelLabels, useModels } from '../../api/hooks.ts';
import type { CellRendererProps } from '../../app/extensions.ts';
import { paths } from '../../app/paths.ts';

export function ObjectTypeCell({ value }: CellRendererProps) {
  const labelOf = useModelLabels();
  return <span data-object-type={String(value)}>{typeof value === 'string' && value ? labelOf(value) : '—'}</span>;
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
  const id = typeof row.object_id === 'string' ? row.object_id : '';
  // The model's own label, as it reads inside a sentence (the BGP session, not the bgp session).
  const label = models.data?.find((m) => m.model === type)?.label;
  if (!id || !label) return <span>—</span>;
  return (
    <Link to={paths.detail(type, id)} className="text-sky-700 hover:underline">
      Open the {label}
    </Link>
  );
}
