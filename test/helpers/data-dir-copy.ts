// Copies an embedded data directory (a PGlite template, a demo-data or install seed) for a test, leaving out the
// blocks that hold only zeros: the copy has holes there, which read as zeros and take no memory until written.
//
// Why: the suite copies its migrated template for every embedded test file and every `cairn` process it starts on
// one (some hundreds of copies a CI run), into a temporary directory in memory (test/runner/tmpdir.ts), and on the
// virtual machines CI runs on each page touched for the first time is dear. A fully copied template was 65 MB; a
// quarter of it zeros (the tail of PostgreSQL's current WAL segment, empty pages of relations).
import { closeSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** The unit of the zero check: PostgreSQL's page size (WAL pages and relation pages alike). */
const BLOCK = 8192;
const ZEROS = Buffer.alloc(BLOCK);
/** Below this a file is written whole: a hole would save at most a page or two. */
const SPARSE_FROM = 64 * 1024;

/** Read and written a chunk at a time, through one buffer: no allocation per file. */
const CHUNK = 64 * BLOCK;
const chunk = Buffer.alloc(CHUNK);

/** Writes `length` bytes of the chunk from `start` at `position` of `fd`, however many calls that takes. */
function writeRun(fd: number, start: number, length: number, position: number): void {
  for (let done = 0; done < length; ) done += writeSync(fd, chunk, start + done, length - done, position + done);
}

function copyFile(from: string, to: string, mode: number, size: number): void {
  if (size < SPARSE_FROM) {
    writeFileSync(to, readFileSync(from), { mode });
    return;
  }
  const input = openSync(from, 'r');
  const output = openSync(to, 'w', mode);
  try {
    for (let offset = 0; offset < size; ) {
      const read = readSync(input, chunk, 0, Math.min(CHUNK, size - offset), offset);
      if (read === 0) break;
      // Each run of blocks that are not all zeros, written at its own offset.
      let start = -1;
      for (let at = 0; at < read; at += BLOCK) {
        const end = Math.min(at + BLOCK, read);
        const zero = chunk.compare(ZEROS, 0, end - at, at, end) === 0;
        if (!zero && start < 0) start = at;
        if (zero && start >= 0) {
          writeRun(output, start, at - start, offset + start);
          start = -1;
        }
      }
      if (start >= 0) writeRun(output, start, read - start, offset + start);
      offset += read;
    }
    ftruncateSync(output, size);
  } finally {
    closeSync(input);
    closeSync(output);
  }
}

/** Copies the directory `from` into `to` (created when missing), files and folders with their modes. */
export function copyDataDir(from: string, to: string): void {
  mkdirSync(to, { recursive: true, mode: statSync(from).mode & 0o7777 });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) copyDataDir(source, target);
    else if (entry.isFile()) {
      const { mode, size } = statSync(source);
      copyFile(source, target, mode & 0o7777, size);
    }
    else throw new Error(`${source} is neither a file nor a folder: a data directory copy does not follow links`);
  }
}
