// The new release's side of the hand-over (stage-protocol.ts): `cairn upgrade stage`, started by the engine of
// the release that runs, takes the run over after prepare and carries it out with this release's own steps.
import { readJournal } from './journal.ts';
import { layoutFor } from '../../install/layout.ts';
import { delegateLock, readLock } from '../../install/lock.ts';
import { sha256, type EngineContext } from './context.ts';
import { hostFor } from '../host/index.ts';
import { continueRun } from './run.ts';
import { ACCEPTED_CALLER_PROTOCOLS, parseHello, STAGE_REFUSED_EXIT, type StageHello } from './stage-protocol.ts';
import { VERSION } from '../../version.ts';
import { inProcessWork, type InProcessDeps } from './release-work.ts';

const HELLO_TIMEOUT_MS = 30_000;

function waitForHello(): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no hand-over message within ${HELLO_TIMEOUT_MS / 1000} s`)), HELLO_TIMEOUT_MS);
    process.once('message', (m) => {
      clearTimeout(timer);
      resolve(m);
    });
  });
}

/** Why this stage will not take the run, or null when it will. */
function refusal(hello: StageHello): string | null {
  if (!ACCEPTED_CALLER_PROTOCOLS.includes(hello.protocol)) {
    return `the upgrade stage of ${VERSION} takes over from engines speaking protocol ${ACCEPTED_CALLER_PROTOCOLS.join(', ')}, not ${hello.protocol}: upgrade with this release's deploy/install.sh`;
  }
  const layout = layoutFor(hello.root);
  const lock = readLock(layout.lockFile);
  // Only the live run that holds the lock may hand over, and only to its own child.
  if (!lock || lock.pid !== process.ppid || lock.tokenSha256 !== sha256(hello.token)) return 'the caller does not hold the upgrade lock';
  const journal = readJournal(layout.journalFile);
  if (!journal || journal.id !== hello.runId || journal.state !== 'running') return `the journal is not that of run ${hello.runId} in progress`;
  if (journal.versionTo !== VERSION) return `the run upgrades to ${journal.versionTo ?? '?'}, and this stage is ${VERSION}`;
  return null;
}

/** Runs the stage; resolves with the process exit code. */
export async function runStage(progress: (line: string) => void, work: InProcessDeps): Promise<number> {
  if (!process.send) {
    process.stderr.write('cairn: `upgrade stage` is started by the upgrade engine of the running release, not by hand: use `cairn upgrade bundle <file>`.\n');
    return 2;
  }
  // Like an exec: the run is one process to the outside. When the launcher dies (SIGKILL of the run), so do we,
  // and recovery finds a dead run.
  process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
  const parsed = parseHello(await waitForHello());
  const refused = typeof parsed === 'string' ? parsed : refusal(parsed);
  if (refused !== null || typeof parsed === 'string') {
    const reason = refused ?? 'invalid hand-over';
    process.stderr.write(`cairn: ${reason}\n`);
    await new Promise<void>((resolve) => process.send!({ refused: reason }, () => resolve()));
    return STAGE_REFUSED_EXIT;
  }
  const layout = layoutFor(parsed.root);
  delegateLock(layout.lockFile, process.pid);
  const journal = readJournal(layout.journalFile)!;
  journal.pid = process.pid;
  // This process is the new release: the steps' work on its database is done here, not by its commands.
  const ctx: EngineContext = { layout, host: hostFor(layout), journal, env: process.env, engineToken: parsed.token, progress, releaseWork: inProcessWork(layout, work) };
  progress(`The upgrade stage of ${VERSION} takes over (protocol ${parsed.protocol}).`);
  await continueRun(ctx);
  return 0;
}
