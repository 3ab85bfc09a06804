// An IP range's allocation buttons: "Next free address" opens the add form filled with the range's first free
// address, "Save at once" creates it (POST available-ips) and opens it; a full range's 409 names the range and is
// shown as it is.
import { useState } from 'react';
import type { DetailTabProps } from '../../app/extensions.ts';
import { NextFreeAddress } from './NextFreeAddress.tsx';
import { useAllocate } from './useAllocate.ts';

export default function RangeActions({ model, object }: DetailTabProps) {
  const { busy, error: allocateError, allocate } = useAllocate();
  const [findError, setFindError] = useState<string | null>(null);
  const endpoint = `${model.path}${object.id}/available-ips/`;
  const error = findError ?? allocateError;
  return (
    <>
      <NextFreeAddress
        endpoint={endpoint}
        name={`The range ${String(object.start_address)}–${String(object.end_address)}`}
        busy={busy}
        saveAtOnce={() => void allocate(endpoint, {}, 'ipam.ipaddress')}
        onError={setFindError}
      />
      {error ? (
        <span role="alert" className="text-sm text-red-700">
          {error}
        </span>
      ) : null}
    </>
  );
}
