// The allocation call every IPAM action button makes: POST one of the available-* endpoints, refresh what is
// cached, open the created object; a refusal (a full prefix, range or group answers 409 naming it) is kept as text.
// And the other way to the same object: the add form opened already filled in, to check or complete first.
import { useState } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { useQueryClient } from '@tanstack/react-query';
import { post } from '../../api/client.ts';
import type { ApiObject, Brief } from '../../api/types.ts';
import { paths } from '../../app/paths.ts';
import { errorMessage } from '../../components/states.tsx';

export function useAllocate() {
  const navigate = useNavigate();
  const queries = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** Resolves true when the object was created and opened. */
  const allocate = async (path: string, body: Record<string, unknown>, target: string): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      const created = await post<ApiObject>(path, body);
      await queries.invalidateQueries();
      await navigate({ to: paths.detail(target, created.id) });
      return true;
    } catch (err) {
      setError(errorMessage(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, allocate };
}

/** A brief as a form value on a URL: what the form shows (its display) and sends (its id), nothing more. */
export const briefValue = (b: Brief | null | undefined) => (b ? { id: b.id, display: b.display } : null);

/** The link to `model`'s add form with `values` filled in (the form shows them and sends them). */
export function filledForm(model: string, values: Record<string, unknown>): { to: string; search: Record<string, unknown> } {
  const search: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) if (value !== null && value !== undefined) search[key] = value;
  return { to: paths.create(model), search };
}
