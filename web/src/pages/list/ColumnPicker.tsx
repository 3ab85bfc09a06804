// Choose and order a list's columns; saved per user on the server (preferences), so it follows them around.
import { useState } from 'react';
import type { ColumnDef } from './columns.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { Button } from '../../components/ui.tsx';

export function ColumnPicker({ open, all, selected, onClose, onSave, saving }: { open: boolean; all: ColumnDef[]; selected: string[]; onClose: () => void; onSave: (columns: string[] | null) => void; saving: boolean }) {
  const [chosen, setChosen] = useState<string[]>(selected);
  const toggle = (key: string) => setChosen((c) => (c.includes(key) ? c.filter((k) => k !== key) : [...c, key]));
  const move = (key: string, by: -1 | 1) =>
    setChosen((c) => {
      const i = c.indexOf(key);
      const j = i + by;
      if (i < 0 || j < 0 || j >= c.length) return c;
      const next = [...c];
      [next[i], next[j]] = [next[j]!, next[i]!];
      return next;
    });
  const label = (key: string) => all.find((c) => c.key === key)?.label ?? key;
  return (
    <Dialog
      open={open}
      title="Columns"
      onClose={onClose}
      wide
      footer={
        <>
          <Button onClick={() => onSave(null)} disabled={saving}>
            Reset to default
          </Button>
          <Button variant="primary" onClick={() => onSave(chosen)} disabled={saving || chosen.length === 0}>
            {saving ? 'Saving…' : 'Save columns'}
          </Button>
        </>
      }
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <fieldset>
          <legend className="mb-1 text-sm font-semibold">Available</legend>
          <ul className="max-h-80 space-y-0.5 overflow-y-auto text-sm">
            {all.map((c) => (
              <li key={c.key}>
                <label className="flex items-center gap-2">
                  <input type="checkbox" checked={chosen.includes(c.key)} onChange={() => toggle(c.key)} />
                  {c.label}
                  {c.custom ? <span className="text-xs text-slate-500">(custom field)</span> : null}
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
        <div>
          <h3 className="mb-1 text-sm font-semibold">Order</h3>
          <ol className="space-y-0.5 text-sm">
            {chosen.map((key, i) => (
              <li key={key} className="flex items-center gap-1">
                <span className="flex-1">{label(key)}</span>
                <button type="button" className="rounded px-1 hover:bg-slate-100 disabled:opacity-30" aria-label={`Move ${label(key)} up`} disabled={i === 0} onClick={() => move(key, -1)}>
                  ↑
                </button>
                <button type="button" className="rounded px-1 hover:bg-slate-100 disabled:opacity-30" aria-label={`Move ${label(key)} down`} disabled={i === chosen.length - 1} onClick={() => move(key, 1)}>
                  ↓
                </button>
              </li>
            ))}
          </ol>
        </div>
      </div>
    </Dialog>
  );
}
