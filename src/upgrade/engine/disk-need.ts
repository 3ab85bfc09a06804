// How much free disk an upgrade needs under the install root before it starts (preflight): the new release beside
// the old one, the pre-upgrade backup, the snapshot when it is a file there, and some slack. Counted before, it was
// the release and the embedded database's folder once: a PostgreSQL install counted no database at all, though its
// backup (and, under the copy size, its snapshot) is written under the root.

const MB = 1024 ** 2;
/** Room for logs, journals and what the counts below leave out. */
const SLACK_BYTES = 200 * MB;
/** Files and dumps vary around what was measured. */
const MARGIN = 1.2;

export interface DiskParts {
  /** The unpacked new release. */
  release: number;
  /**
   * The pre-upgrade backup: as large as the last backup (a compressed dump: 390 MB for a 5.6 GB database), or, with
   * none yet, the database's present size; null when it is skipped on request.
   */
  backup: { bytes: number; asLast: boolean } | null;
  /**
   * A snapshot written under the root (an embedded database's copy, or a PostgreSQL dump), at the database's present
   * size; null when the database server copies the database on its own disk. Counted whether or not migrations turn
   * out to be pending: that is known only at deps.
   */
  snapshot: number | null;
}

export interface DiskNeed {
  bytes: number;
  /** What the need is made of, for the step's line and the refusal: `release 32 MB; backup 390 MB (as the last one); …`. */
  parts: string;
}

export function diskNeed(p: DiskParts): DiskNeed {
  const mb = (n: number) => `${Math.ceil(n / MB)} MB`;
  const backup = p.backup ? `backup ${mb(p.backup.bytes)} (${p.backup.asLast ? 'as the last one' : "the database's size: no backup yet"})` : 'no backup';
  return {
    bytes: MARGIN * (p.release + (p.backup?.bytes ?? 0) + (p.snapshot ?? 0)) + SLACK_BYTES,
    parts: [`release ${mb(p.release)}`, backup, p.snapshot === null ? 'snapshot copied by the database server' : `snapshot ${mb(p.snapshot)}`].join('; '),
  };
}
