// An export template's object type by the plural label of its model ("Devices", not dcim.device).
import { useModels } from '../../api/hooks.ts';
import type { CellRendererProps } from '../../app/extensions.ts';

export function useObjectTypeLabel(): (model: string) => string {
  const models = useModels();
  return (model) => {
    const plural = models.data?.find((m) => m.model === model)?.label_plural;
    return plural ? plural.charAt(0).toUpperCase() + plural.slice(1) : model;
  };
}

export function ObjectTypeCell({ value }: CellRendererProps) {
  const labelOf = useObjectTypeLabel();
  return <span data-object-type={String(value ?? '')}>{typeof value === 'string' && value ? labelOf(value) : '—'}</span>;
}
