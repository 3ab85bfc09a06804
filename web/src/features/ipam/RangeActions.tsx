// An IP range's allocation button: "Next free address" (POST available-ips) creates the first free address of
// the range and opens it; a full range's 409 names the range and is shown as it is.
import type { DetailTabProps } from '../../app/extensions.ts';
import { Button } from '../../components/ui.tsx';
import { useAllocate } from './useAllocate.ts';

export default function RangeActions({ model, object }: DetailTabProps) {
  const { busy, error, allocate } = useAllocate();
  return (
    <>
      <Button onClick={() => void allocate(`${model.path}${object.id}/available-ips/`, {}, 'ipam.ipaddress')} disabled={busy}>
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
