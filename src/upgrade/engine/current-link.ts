// The `current` link of an install: which release runs. Switched atomically, so a crash leaves one or the other.
import { renameSync, rmSync, symlinkSync } from 'node:fs';
import { relative } from 'node:path';
import type { InstallLayout } from '../../install/layout.ts';

/** Points <root>/current at a release atomically (a new link renamed over the old one). */
export function pointCurrentAt(layout: InstallLayout, dir: string): void {
  const tmp = `${layout.current}.${process.pid}.new`;
  rmSync(tmp, { force: true });
  symlinkSync(relative(layout.root, dir), tmp);
  renameSync(tmp, layout.current);
}
