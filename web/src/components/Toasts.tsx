// Toast messages (saved, deleted, updated build) in one polite live region at the bottom right.
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';

export interface Toast {
  id: string;
  message: ReactNode;
  tone?: 'info' | 'success' | 'error';
  action?: { label: string; onClick: () => void };
  /** Milliseconds before it goes away by itself; 0 keeps it until dismissed. */
  timeout?: number;
}

interface ToastApi {
  show(toast: Omit<Toast, 'id'> & { id?: string }): void;
  dismiss(id: string): void;
}

const ToastContext = createContext<ToastApi | null>(null);

export function useToast(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error('useToast outside ToastProvider');
  return api;
}

let counter = 0;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dismiss = useCallback((id: string) => setToasts((all) => all.filter((t) => t.id !== id)), []);
  const show = useCallback(
    (toast: Omit<Toast, 'id'> & { id?: string }) => {
      const id = toast.id ?? `toast-${++counter}`;
      setToasts((all) => [...all.filter((t) => t.id !== id), { ...toast, id }]);
      const timeout = toast.timeout ?? 5000;
      if (timeout > 0) setTimeout(() => dismiss(id), timeout);
    },
    [dismiss],
  );
  const api = useMemo(() => ({ show, dismiss }), [show, dismiss]);
  const tones = { info: 'border-slate-300 bg-white', success: 'border-green-300 bg-green-50', error: 'border-red-300 bg-red-50' };
  return (
    <ToastContext.Provider value={api}>
      {children}
      <div aria-live="polite" className="pointer-events-none fixed right-4 bottom-4 z-50 flex w-80 max-w-[calc(100vw-2rem)] flex-col gap-2">
        {toasts.map((t) => (
          <div key={t.id} role="status" data-toast={t.id} className={`pointer-events-auto flex items-start gap-3 rounded-lg border p-3 text-sm shadow-lg ${tones[t.tone ?? 'info']}`}>
            <div className="flex-1">{t.message}</div>
            {t.action ? (
              <button type="button" className="rounded bg-sky-700 px-2 py-1 font-medium text-white hover:bg-sky-800" onClick={t.action.onClick}>
                {t.action.label}
              </button>
            ) : null}
            <button type="button" aria-label="Dismiss" className="px-1 text-slate-500 hover:text-slate-900" onClick={() => dismiss(t.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
