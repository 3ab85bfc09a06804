// How much free disk an upgrade needs under the install root before it starts (preflight): the new release beside
// the old one, the pre-upgrade backup, the snapshot when it is a file there, and some slack. Counted before, it was
// the release and the embedded database's folder once: a PostgreSQL install counted no database at all, though its
// backup (and, under the copy size, its snapshot) is a dump written under the root.

const MB = 1024 ** 2;
/** Room for logs, journals and what the counts below leave out. */
const SLACK_BYTES = 200 * MB;
/** Files and dumps vary around what was measured. */
const MARGIN = 1.2;

export interface DiskParts {
  /** The unpacked new release. */
  release: number;
  /** The database as it takes disk now (the embedded folder, or PostgreSQL's count of its files): at most what a dump or copy of it takes. */
  database: number;
  /** A pre-upgrade backup will be taken (not skipped on request). */
  backup: boolean;
  /**
   * The snapshot would be a file under the root (an embedded database's, or a PostgreSQL dump); the server's copy is
   * on the server's disk. Counted whether or not migrations turn out to be pending: that is known only at deps.
   */
  snapshotUnderRoot: boolean;
}

export interface DiskNeed {
  bytes: number;
  /** What the need is made of, for the refusal: `release 45 MB, backup 120 MB, snapshot 120 MB`. */
  parts: string;
}

export function diskNeed(p: DiskParts): DiskNeed {
  const backup = p.backup ? p.database : 0;
  const snapshot = p.snapshotUnderRoot ? p.database : 0;
  const mb = (n: number) => `${Math.ceil(n / MB)} MB`;
  return {
    bytes: MARGIN * (p.release + backup + snapshot) + SLACK_BYTES,
    parts: [`release ${mb(p.release)}`, p.backup ? `backup ${mb(backup)}` : 'no backup', p.snapshotUnderRoot ? `snapshot ${mb(snapshot)}` : 'snapshot copied by the database server'].join(', '),
  };
}
