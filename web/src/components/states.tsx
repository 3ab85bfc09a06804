// Loading, empty, error and not-found states, so every page says what is happening in the same words.
import type { ReactNode } from 'react';
import { ApiError } from '../api/client.ts';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div role="status" aria-live="polite" className="flex items-center gap-2 p-6 text-sm text-slate-500">
      <span className="inline-block size-4 animate-spin rounded-full border-2 border-slate-300 border-t-sky-600" aria-hidden="true" />
      {label}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="rounded-lg border border-dashed border-slate-300 p-8 text-center">
      <p className="font-medium text-slate-700">{title}</p>
      {children ? <div className="mt-2 text-sm text-slate-500">{children}</div> : null}
    </div>
  );
}

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  const status = error instanceof ApiError ? error.status : null;
  return (
    <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-800">
      <p className="font-medium">{status === 403 ? 'You do not have access to this.' : status === 404 ? 'Not found.' : 'This could not be loaded.'}</p>
      <p className="mt-1">{errorMessage(error)}</p>
      {retry ? (
        <button type="button" onClick={retry} className="mt-3 rounded border border-red-300 bg-white px-3 py-1 font-medium hover:bg-red-100">
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function NotFound() {
  return (
    <div className="p-6">
      <h1 className="text-lg font-semibold">Page not found</h1>
      <p className="mt-2 text-sm text-slate-600">
        There is no page at this address. <a className="text-sky-700 underline" href="/">Go to the start page</a>.
      </p>
    </div>
  );
}
