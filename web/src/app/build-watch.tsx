// Notices a newer frontend build: the server's dist/build-id.json is read when the tab regains focus and every
// few minutes; when it names another build than the one running, an "Updated" toast offers a reload. A chunk
// that fails to load (its file was replaced by a deploy) reloads the tab once.
import { useEffect } from 'react';
import { useToast } from '../components/Toasts.tsx';

declare const __CAIRN_BUILD_ID__: string;

export const RUNNING_BUILD_ID = __CAIRN_BUILD_ID__;
// Shown on <html data-build> so support (and tests) can see which build a tab runs.
document.documentElement.dataset.build = RUNNING_BUILD_ID;
const POLL_MS = 5 * 60_000;
const RELOAD_KEY = 'cairn:chunk-reload-at';

async function servedBuildId(): Promise<string | null> {
  try {
    const res = await fetch('/build-id.json', { cache: 'no-store', credentials: 'same-origin' });
    if (!res.ok) return null;
    const body = (await res.json()) as { build_id?: unknown };
    return typeof body.build_id === 'string' ? body.build_id : null;
  } catch {
    return null;
  }
}

export function BuildWatcher() {
  const toast = useToast();
  useEffect(() => {
    let stopped = false;
    const check = async () => {
      const served = await servedBuildId();
      if (stopped || !served || served === RUNNING_BUILD_ID) return;
      toast.show({
        id: 'new-build',
        message: (
          <span>
            <strong>Updated.</strong> A newer version of Cairn is available.
          </span>
        ),
        timeout: 0,
        action: { label: 'Reload', onClick: () => window.location.reload() },
      });
    };
    const onVisible = () => {
      if (document.visibilityState === 'visible') void check();
    };
    window.addEventListener('focus', onVisible);
    document.addEventListener('visibilitychange', onVisible);
    const timer = window.setInterval(() => void check(), POLL_MS);
    return () => {
      stopped = true;
      window.removeEventListener('focus', onVisible);
      document.removeEventListener('visibilitychange', onVisible);
      window.clearInterval(timer);
    };
  }, [toast]);
  return null;
}

export function isChunkLoadError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /Failed to fetch dynamically imported module|Importing a module script failed|error loading dynamically imported module|Unable to preload CSS/i.test(message);
}

/** Reloads the tab once per minute at most, so a broken deploy cannot loop. Returns whether it reloads. */
export function reloadOnceForChunkError(error?: unknown): boolean {
  // Route pages load through TanStack Router's lazyRouteComponent, which already reloads once per failing module
  // (remembered in sessionStorage under this key); reloading again here would make it twice.
  const message = error instanceof Error ? error.message : '';
  if (message && sessionStorage.getItem(`tanstack_router_reload:${message}`)) return false;
  const last = Number(sessionStorage.getItem(RELOAD_KEY) ?? 0);
  if (Date.now() - last < 60_000) return false;
  sessionStorage.setItem(RELOAD_KEY, String(Date.now()));
  window.location.reload();
  return true;
}
