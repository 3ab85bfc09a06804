// A model's add form in a dialog with some fields already filled in (an address's interface, a cable's A side), as
// NetBox's row actions open them. The filled-in values are shown in their fields and sent unless the user changes
// them; everything else is the generic form.
import { useQueryClient } from '@tanstack/react-query';
import { post } from '../../api/client.ts';
import { useModelInfo } from '../../api/hooks.ts';
import type { ApiObject } from '../../api/types.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { Loading } from '../../components/states.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { ObjectForm } from '../../pages/edit/ObjectForm.tsx';

export interface Prefill {
  /** What the form shows in the field (a brief object, or a list of them for a cable end). */
  shown: unknown;
  /** What the request sends for it. */
  sent: unknown;
}

export function PrefilledCreateDialog({
  modelName,
  title,
  prefill,
  open,
  onClose,
  onCreated,
}: {
  modelName: string;
  title: string;
  prefill: Record<string, Prefill>;
  open: boolean;
  onClose: () => void;
  onCreated?: (created: ApiObject) => void;
}) {
  const info = useModelInfo(modelName);
  const client = useQueryClient();
  const toast = useToast();
  const model = info.data;
  // The form reads the filled-in fields as an object's values; it has no id, so no picker filters by it.
  const shown = Object.fromEntries(Object.entries(prefill).map(([k, v]) => [k, v.shown])) as unknown as ApiObject;
  const sent = Object.fromEntries(Object.entries(prefill).map(([k, v]) => [k, v.sent]));
  return (
    <Dialog open={open} wide title={title} onClose={onClose}>
      {!model ? (
        <Loading />
      ) : (
        <div className="text-left">
        <ObjectForm
          model={model}
          object={shown}
          submitLabel="Create"
          onCancel={onClose}
          onSubmit={async (body) => {
            const created = await post<ApiObject>(model.path, { ...sent, ...body });
            void client.invalidateQueries({ queryKey: ['list'] });
            void client.invalidateQueries({ queryKey: ['object'] });
            toast.show({ message: `Created ${created.display}.`, tone: 'success' });
            onCreated?.(created);
            onClose();
          }}
        />
        </div>
      )}
    </Dialog>
  );
}
