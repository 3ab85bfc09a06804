// A modal dialog on the native <dialog> element: focus is trapped and Escape closes it, by the browser.
import { useEffect, useRef, type ReactNode } from 'react';
import { Button } from './ui.tsx';

export function Dialog({ open, title, onClose, children, footer, wide }: { open: boolean; title: string; onClose: () => void; children: ReactNode; footer?: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (open && !el.open) el.showModal();
    if (!open && el.open) el.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby="dialog-title"
      onClose={onClose}
      className={`m-auto w-[calc(100vw-2rem)] ${wide ? 'max-w-3xl' : 'max-w-lg'} rounded-xl p-0 shadow-2xl`}
    >
      {open ? (
        <div className="flex max-h-[85vh] flex-col">
          <div className="flex items-center justify-between border-b border-slate-200 px-5 py-3">
            <h2 id="dialog-title" className="text-lg font-semibold">
              {title}
            </h2>
            <button type="button" aria-label="Close" className="rounded px-2 text-xl text-slate-500 hover:bg-slate-100" onClick={onClose}>
              ×
            </button>
          </div>
          <div className="overflow-y-auto px-5 py-4">{children}</div>
          {footer ? <div className="flex justify-end gap-2 border-t border-slate-200 px-5 py-3">{footer}</div> : null}
        </div>
      ) : null}
    </dialog>
  );
}

/**
 * The footer of a dialog that asks for one action: Cancel (or Close) and the action button, which says it is busy
 * while the request runs. One component so every dialog puts them in the same order with the same wording.
 */
export function DialogActions({ onCancel, cancelLabel = 'Cancel', onConfirm, confirmLabel, busyLabel, pending = false, disabled = false, variant = 'primary' }: {
  onCancel: () => void;
  cancelLabel?: string;
  onConfirm: () => void;
  confirmLabel: string;
  /** Shown on the action button while `pending` (e.g. "Saving…"). */
  busyLabel: string;
  pending?: boolean;
  disabled?: boolean;
  variant?: 'primary' | 'danger';
}) {
  return (
    <>
      <Button onClick={onCancel}>{cancelLabel}</Button>
      <Button variant={variant} disabled={disabled || pending} onClick={onConfirm}>
        {pending ? busyLabel : confirmLabel}
      </Button>
    </>
  );
}
