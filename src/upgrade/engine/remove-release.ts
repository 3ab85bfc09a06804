// A release leaves the install with what its processes kept beside the install's files (its code cache).
import { rmSync } from 'node:fs';
import { basename } from 'node:path';
import { releaseCacheDir, type InstallLayout } from '../../install/layout.ts';

/** Removes the release unpacked in `dir` (a folder of layout.releases) and its code cache. */
export function removeRelease(layout: InstallLayout, dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  rmSync(releaseCacheDir(layout, basename(dir)), { recursive: true, force: true });
}
