// "Next free address" of a prefix or an IP range, the two ways NetBox users expect: the button opens the add form
// filled with the first free address and the container's VRF (GET available-ips), to check or complete it first;
// "Save at once" beside it creates that address in one click (POST available-ips) and opens it. A full container
// says so (the API's 409 names it), shown as it is.
import { useState } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { get } from '../../api/client.ts';
import type { Brief } from '../../api/types.ts';
import { errorMessage } from '../../components/states.tsx';
import { Button } from '../../components/ui.tsx';
import { briefValue, filledForm } from './useAllocate.ts';

interface Props {
  /** The container's available-ips endpoint. */
  endpoint: string;
  /** The container as people read it (10.0.0.0/24), for "has no free address". */
  name: string;
  busy: boolean;
  /** Creates the next free address at once (useAllocate's allocate on the same endpoint). */
  saveAtOnce: () => void;
  /** Where a failure to find the next address is reported (beside the other allocation errors). */
  onError: (message: string | null) => void;
}

export function NextFreeAddress({ endpoint, name, busy, saveAtOnce, onError }: Props) {
  const navigate = useNavigate();
  const [opening, setOpening] = useState(false);

  async function openForm() {
    setOpening(true);
    onError(null);
    try {
      const [first] = await get<Array<{ address: string; vrf: Brief | null }>>(endpoint, { limit: 1 });
      if (!first) onError(`${name} has no free address.`);
      else await navigate(filledForm('ipam.ipaddress', { address: first.address, vrf: briefValue(first.vrf) }));
    } catch (err) {
      onError(errorMessage(err));
    } finally {
      setOpening(false);
    }
  }

  return (
    <span className="inline-flex">
      <Button onClick={() => void openForm()} disabled={busy || opening} className="rounded-r-none" title="Open the add form with the first free address filled in">
        {opening ? 'Finding…' : 'Next free address'}
      </Button>
      <Button
        onClick={() => {
          onError(null);
          saveAtOnce();
        }}
        disabled={busy || opening}
        className="-ml-px rounded-l-none"
        aria-label="Save the next free address at once"
        title="Create the first free address now, without the form"
      >
        Save at once
      </Button>
    </span>
  );
}
