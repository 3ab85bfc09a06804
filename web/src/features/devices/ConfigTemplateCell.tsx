// How a device's `config_template` ({own, resolved}) reads in its Overview and list: the template a render uses,
// linked, and whether it is bound to the device itself or inherited from its role or platform.
import { Link } from '@tanstack/react-router';
import { paths } from '../../app/paths.ts';

interface Binding {
  own: { id: string; name: string } | null;
  resolved: { id: string; name: string } | null;
}

export function ConfigTemplateCell({ value }: { value: unknown }) {
  const b = value && typeof value === 'object' ? (value as Binding) : null;
  if (!b?.resolved) return <span className="text-slate-400">—</span>;
  return (
    <span>
      <Link to={paths.detail('extras.exporttemplate', b.resolved.id)} className="text-sky-700 hover:underline">
        {b.resolved.name}
      </Link>{' '}
      <span className="text-xs text-slate-500">{b.own ? '(on the device)' : '(from its role or platform)'}</span>
    </span>
  );
}
