// /objects/<model>/new and /objects/<model>/<id>/edit: the generic form pages.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { ApiError, get, patch, post } from '../../api/client.ts';
import { useModelInfo } from '../../api/hooks.ts';
import type { ApiObject } from '../../api/types.ts';
import { paths } from '../../app/paths.ts';
import { ErrorState, Loading, NotFound } from '../../components/states.tsx';
import { PageHeader } from '../../components/ui.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { ObjectForm } from './ObjectForm.tsx';

export function CreatePage() {
  const { model: name } = useParams({ strict: false }) as { model: string };
  // Values a link fills in (`?address=10.0.0.41/24&vrf={"id":…,"display":…}`): the form shows and sends them.
  const prefill = useSearch({ strict: false }) as Record<string, unknown>;
  const info = useModelInfo(name);
  const navigate = useNavigate();
  const client = useQueryClient();
  const toast = useToast();
  if (info.isLoading) return <Loading />;
  if (!info.data) return <NotFound />;
  const model = info.data;
  if (!model.can.add) return <Refused what={`You cannot add ${model.label_plural}.`} />;
  return (
    <div>
      <PageHeader title={`Add ${model.label}`} />
      {/* One form per model: going from one Add page to another starts from that model's defaults, not the last one's values. */}
      <ObjectForm
        key={model.model}
        model={model}
        submitLabel="Create"
        prefill={prefill}
        onCancel={() => void navigate({ to: paths.list(model.model) })}
        onSubmit={async (body) => {
          const created = await post<ApiObject>(model.path, body);
          void client.invalidateQueries({ queryKey: ['list', model.path] });
          toast.show({ message: `Created ${created.display}.`, tone: 'success' });
          await navigate({ to: paths.detail(model.model, created.id) });
        }}
      />
    </div>
  );
}

export function EditPage() {
  const { model: name, id } = useParams({ strict: false }) as { model: string; id: string };
  const info = useModelInfo(name);
  const navigate = useNavigate();
  const client = useQueryClient();
  const toast = useToast();
  const model = info.data;
  const object = useQuery({ queryKey: ['object', model?.path ?? '', id], queryFn: () => get<ApiObject>(`${model!.path}${id}/`), enabled: !!model?.can.change });
  if (info.isLoading || (model && object.isLoading)) return <Loading />;
  if (!model) return <NotFound />;
  // Read-only models (the change log, check results) and callers without the change permission: the form would
  // only fail on its first request, with the permission's code.
  if (!model.can.change) return <Refused what={`You cannot edit ${model.label_plural}.`} />;
  if (object.error) return <ErrorState error={object.error} retry={() => void object.refetch()} />;
  return (
    <div>
      <PageHeader title={`Edit ${object.data!.display}`} subtitle={model.label} />
      <ObjectForm
        model={model}
        object={object.data!}
        submitLabel="Save"
        onCancel={() => void navigate({ to: paths.detail(model.model, id) })}
        onSubmit={async (body) => {
          const saved = Object.keys(body).length ? await patch<ApiObject>(`${model.path}${id}/`, body) : object.data!;
          client.setQueryData(['object', model.path, id], saved);
          void client.invalidateQueries({ queryKey: ['list', model.path] });
          void client.invalidateQueries({ queryKey: ['changes', model.model, id] });
          toast.show({ message: `Saved ${saved.display}.`, tone: 'success' });
          await navigate({ to: paths.detail(model.model, id) });
        }}
      />
    </div>
  );
}

/** A form the caller may not use, typed or followed by hand: said as a refusal, with nothing to retry. */
function Refused({ what }: { what: string }) {
  return <ErrorState error={new ApiError(403, { detail: what })} />;
}
