// A modal dialog on the native <dialog> element: focus is trapped and Escape closes it, by the browser.
import { useEffect, useRef, type ReactNode } from 'react';

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
