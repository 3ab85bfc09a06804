// The outermost layout: toasts and the build watcher live here so they also work on the sign-in page.
import { Outlet } from '@tanstack/react-router';
import { BuildWatcher } from './build-watch.tsx';

export function RootLayout() {
  return (
    <>
      <BuildWatcher />
      <Outlet />
    </>
  );
}
