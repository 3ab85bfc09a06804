// A prefix's allocation buttons: "Next free address" opens the add form filled with the first free address (GET
// available-ips), to check or complete it first, and "Save at once" takes it in one click (POST available-ips);
// "Carve child prefix" (POST available-prefixes with a length) opens what it created. A full prefix answers 409
// with a message that names the prefix and what was asked, shown as it is.
import { useState } from 'react';
import type { DetailTabProps } from '../../app/extensions.ts';
import { Dialog, DialogActions } from '../../components/Dialog.tsx';
import { Button, inputClass } from '../../components/ui.tsx';
import { NextFreeAddress } from './NextFreeAddress.tsx';
import { useAllocate } from './useAllocate.ts';

function maskOf(prefix: unknown): { length: number; max: number } {
  const text = String(prefix);
  return { length: Number(text.split('/')[1] ?? 0), max: text.includes(':') ? 128 : 32 };
}

export default function PrefixActions({ model, object }: DetailTabProps) {
  const mask = maskOf(object.prefix);
  const { busy, error: allocateError, allocate: allocateAt } = useAllocate();
  const [openError, setOpenError] = useState<string | null>(null);
  const error = openError ?? allocateError;
  const [carving, setCarving] = useState(false);
  const [length, setLength] = useState(String(Math.min(mask.max, mask.length + (mask.max === 32 ? 2 : 16))));

  async function allocate(kind: 'available-ips' | 'available-prefixes', body: Record<string, unknown>, target: string) {
    setOpenError(null);
    if (await allocateAt(`${model.path}${object.id}/${kind}/`, body, target)) setCarving(false);
  }

  const carveLength = Number(length);
  const lengthProblem = !Number.isInteger(carveLength) || carveLength <= mask.length || carveLength > mask.max ? `A length from ${mask.length + 1} to ${mask.max}.` : null;
  const carve = () => {
    if (!lengthProblem) void allocate('available-prefixes', { prefix_length: carveLength }, 'ipam.prefix');
  };
  return (
    <>
      <NextFreeAddress
        endpoint={`${model.path}${object.id}/available-ips/`}
        name={String(object.prefix)}
        busy={busy}
        saveAtOnce={() => void allocate('available-ips', {}, 'ipam.ipaddress')}
        onError={setOpenError}
      />
      <Button onClick={() => setCarving(true)} disabled={busy}>
        Carve child prefix
      </Button>
      {error && !carving ? (
        <span role="alert" className="text-sm text-red-700">
          {error}
        </span>
      ) : null}
      <Dialog
        open={carving}
        title={`Carve a child prefix of ${String(object.prefix)}`}
        onClose={() => setCarving(false)}
        footer={<DialogActions onCancel={() => setCarving(false)} onConfirm={carve} confirmLabel="Carve" busyLabel="Carving…" pending={busy} disabled={lengthProblem !== null} />}
      >
        <form
          onSubmit={(e) => {
            e.preventDefault();
            carve();
          }}
          className="space-y-3"
        >
          <label className="block text-sm">
            <span className="mb-1 block font-medium">Prefix length</span>
            <input className={inputClass} inputMode="numeric" value={length} onChange={(e) => setLength(e.target.value)} aria-invalid={lengthProblem ? true : undefined} autoFocus />
          </label>
          <p className="text-sm text-slate-600">{lengthProblem ?? `The first free /${carveLength} inside ${String(object.prefix)} becomes a new prefix.`}</p>
          {error ? (
            <p role="alert" className="text-sm text-red-700">
              {error}
            </p>
          ) : null}
        </form>
      </Dialog>
    </>
  );
}
