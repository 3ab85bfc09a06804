// An IP range's allocation button: "Next free address" (POST available-ips) creates the first free address of
// the range and opens it; a full range's 409 names the range and is shown as it is.
import { useState } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { useQueryClient } from '@tanstack/react-query';
import { post } from '../../api/client.ts';
import type { ApiObject } from '../../api/types.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { paths } from '../../app/paths.ts';
import { errorMessage } from '../../components/states.tsx';
import { Button } from '../../components/ui.tsx';

export default function RangeActions({ model, object }: DetailTabProps) {
  const navigate = useNavigate();
  const queries = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const allocate = async () => {
    setBusy(true);
    setError(null);
    try {
      const created = await post<ApiObject>(`${model.path}${object.id}/available-ips/`, {});
      await queries.invalidateQueries();
      await navigate({ to: paths.detail('ipam.ipaddress', created.id) });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button onClick={() => void allocate()} disabled={busy}>
        Next free address
      </Button>
      {error ? (
        <span role="alert" className="text-sm text-red-700">
          {error}
        </span>
      ) : null}
    </>
  );
}
