// A cable's length with its unit, as NetBox's cable list writes it ("3 Meters"): the unit on its own was a second
// column and a second Overview row.
import { useChoices } from '../../api/hooks.ts';
import type { CellRendererProps } from '../../app/extensions.ts';

export function CableLengthCell({ row, value }: CellRendererProps) {
  const units = useChoices().data?.length_units;
  if (value === null || value === undefined || value === '') return <span className="text-slate-400">—</span>;
  const unit = typeof row.length_unit === 'string' ? row.length_unit : null;
  const unitLabel = unit ? (units?.find((u) => u.value === unit)?.label ?? unit) : null;
  return (
    <span>
      {String(value)}
      {unitLabel ? ` ${unitLabel}` : ''}
    </span>
  );
}
