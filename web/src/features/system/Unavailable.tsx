// What a page says when the server it talks to has no such endpoint yet (an older or partial build answers 404).
import { ApiError } from '../../api/client.ts';
import { ErrorState } from '../../components/states.tsx';

export const isMissing = (err: unknown) => err instanceof ApiError && err.status === 404;

export function UnavailableOr({ error, what, retry }: { error: unknown; what: string; retry?: () => void }) {
  if (isMissing(error)) {
    return (
      <div role="status" className="rounded-lg border border-dashed border-slate-300 p-6 text-sm text-slate-600">
        {what} is not available on this server.
      </div>
    );
  }
  return <ErrorState error={error} retry={retry} />;
}
