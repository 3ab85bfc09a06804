// Shared queries over the self-describing API. Pages use these instead of fetching the same catalogs again.
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { get, patch } from './client.ts';
import type { EditableField, ListFields, Me, ModelInfo } from './types.ts';

export const keys = {
  me: ['me'] as const,
  models: ['models'] as const,
  listFields: (path: string) => ['list-fields', path] as const,
  editableFields: (model: string) => ['editable-fields', model] as const,
  preferences: ['preferences'] as const,
};

// Query definitions shared by the hooks below and by route loaders that start them early.
export const meQuery = queryOptions({ queryKey: keys.me, queryFn: () => get<Me>('/api/auth/me/'), retry: false, staleTime: 60_000 });
export const modelsQuery = queryOptions({ queryKey: keys.models, queryFn: () => get<{ models: ModelInfo[] }>('/api/models/').then((r) => r.models), staleTime: 5 * 60_000 });
export const preferencesQuery = queryOptions({
  queryKey: keys.preferences,
  queryFn: () => get<{ preferences: Record<string, unknown> }>('/api/users/me/preferences/').then((r) => r.preferences),
  staleTime: Infinity,
});
export const listFieldsQuery = (path: string) => queryOptions({ queryKey: keys.listFields(path), queryFn: () => get<ListFields>('/api/list-fields/', { path }), staleTime: 5 * 60_000 });

export function useMe() {
  return useQuery(meQuery);
}

export function useModels() {
  return useQuery(modelsQuery);
}

/** The model entry for `name` (e.g. dcim.device), undefined while loading or when the caller may not see it. */
export function useModelInfo(name: string) {
  const models = useModels();
  return { ...models, data: models.data?.find((m) => m.model === name) };
}

/**
 * Names kinds of objects as people read them: `dcim.device` → Device, `routing.bgpsession` → BGP session; a kind
 * the caller may not see (or one since removed) by its code's last word, never the whole code.
 */
export function useModelLabels(): (name: string) => string {
  const models = useModels();
  return (name) => {
    const label = models.data?.find((m) => m.model === name)?.label ?? name.split('.').pop() ?? name;
    return label.charAt(0).toUpperCase() + label.slice(1);
  };
}

export function useListFields(path: string | undefined) {
  return useQuery({ ...listFieldsQuery(path ?? ''), enabled: !!path });
}

export function useEditableFields(model: string | undefined, enabled = true) {
  return useQuery({
    queryKey: keys.editableFields(model ?? ''),
    queryFn: () => get<EditableField[]>('/api/editable-fields/', { model }),
    enabled: !!model && enabled,
    staleTime: 5 * 60_000,
  });
}

export function usePreferences() {
  return useQuery(preferencesQuery);
}

/** Saves preference keys (null removes one); the cache is updated from the server's answer. */
export function useSavePreferences() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (values: Record<string, unknown>) => patch<{ preferences: Record<string, unknown> }>('/api/users/me/preferences/', values),
    onSuccess: (r) => client.setQueryData(keys.preferences, r.preferences),
  });
}

export function useChoices() {
  return useQuery({
    queryKey: ['dcim-choices'],
    queryFn: () => get<Record<string, Array<{ value: string; label: string; group?: string }>>>('/api/dcim/choices/'),
    staleTime: Infinity,
  });
}
