// Target paths of config templates are file paths, compared as paths: `/etc/x.conf`, `etc/x.conf`,
// `/etc//x.conf` and `/etc/./x.conf` are one file on the device and one entry in a bundle tarball, so they are
// stored in one form (absolute, single slashes, no `.` segments) and bundles compare them in that form.

/** Why a target path cannot name a file, or null when it can. */
export function targetPathProblem(value: string): string | null {
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'No control characters.';
  const segments = value.split('/');
  if (segments.includes('..')) return 'A target path may not contain ".." segments.';
  if (segments.filter((s) => s !== '' && s !== '.').length === 0) return 'A target path names a file: "/" alone names none.';
  if (segments[segments.length - 1] === '' || segments[segments.length - 1] === '.') return 'A target path names a file, so it may not end with "/" (an empty last segment).';
  return null;
}

/** The stored form of a target path (`/` + its segments, `//` and `.` left out), or null when it names no file. */
export function normalizeTargetPath(value: string): string | null {
  if (targetPathProblem(value) !== null) return null;
  return `/${value.split('/').filter((s) => s !== '' && s !== '.').join('/')}`;
}

/** What two bundle paths are compared by: a target path and a default `<name>.<ext>` land at the same entry. */
export function bundlePathKey(path: string): string {
  return path.replace(/^\/+/, '');
}
