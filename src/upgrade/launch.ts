// Starts an upgrade run outside the calling process, exactly as an administrator would from the shell:
// `node <root>/current/bin/cairn.mjs upgrade bundle <file> --root <root>`. The engine stops the web service, so a
// run started from the web process (or a worker) must not be its child in any way that a stop would reach:
// under systemd it is the transient unit cairn-upgrade (as deploy/install.sh starts it, with the recovery unit
// on failure), otherwise a process in a session of its own. The launcher waits until the run has taken the lock
// and written its journal, so a refusal (another run alive, an unrecovered run) is answered to the caller.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { newRunId } from './engine/context.ts';
import { readJournal } from './engine/journal.ts';
import { readEnvFile, releaseEnv, type InstallLayout } from '../install/layout.ts';
import { BUSY_MESSAGE } from '../install/lock.ts';

export type LaunchTrigger = 'bundle' | 'online' | 'auto';

export interface LaunchRequest {
  layout: InstallLayout;
  bundlePath: string;
  trigger: LaunchTrigger;
  startedBy: string;
  /** Extra environment for the run (tests: fault injection). */
  env?: Record<string, string>;
}

export interface Launched {
  run_id: string;
  /** Where the run's own output goes until it has a journal (and a refusal's text). */
  log: string;
  via: 'systemd-run' | 'process';
}

/** The run refused to start (its own message, e.g. 'An upgrade is already running.'). */
export class LaunchRefused extends Error {
  constructor(
    message: string,
    readonly busy: boolean,
  ) {
    super(message);
  }
}

const CONFIRM_TIMEOUT_MS = 120_000;
export const RUN_ID_RE = /^\d{8}T\d{6}-[0-9a-f]{6}$/;

function usesSystemd(layout: InstallLayout, env: NodeJS.ProcessEnv): boolean {
  return ({ ...readEnvFile(layout.envFile), ...env }).CAIRN_HOST === 'systemd';
}

/** The refusal line `cairn upgrade bundle` prints (`cairn: <message>`), if the log has one. */
function refusalIn(log: string): string | null {
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return null;
  }
  const line = text.split('\n').find((l) => l.startsWith('cairn: '));
  return line ? line.slice('cairn: '.length).trim() : null;
}

export async function launchUpgrade(req: LaunchRequest, env: NodeJS.ProcessEnv = process.env): Promise<Launched> {
  const { layout } = req;
  const runId = newRunId();
  const launchDir = join(layout.upgradeDir, 'launch');
  mkdirSync(launchDir, { recursive: true, mode: 0o700 });
  const log = join(launchDir, `${runId}.log`);
  const runEnv: Record<string, string> = {
    ...req.env,
    CAIRN_UPGRADE_TRIGGER: req.trigger,
    CAIRN_UPGRADE_STARTED_BY: req.startedBy,
    CAIRN_UPGRADE_RUN_ID: runId,
  };
  const cairn = join(layout.current, 'bin', 'cairn.mjs');
  const args = [cairn, 'upgrade', 'bundle', req.bundlePath, '--root', layout.root];
  let exited: number | null | undefined;
  let via: Launched['via'];
  const fd = openSync(log, 'a', 0o600);
  try {
    if (usesSystemd(layout, env)) {
      via = 'systemd-run';
      const systemdRun = env.CAIRN_SYSTEMD_RUN ?? 'systemd-run';
      const unitArgs = [
        ...(({ ...readEnvFile(layout.envFile), ...env }).CAIRN_SYSTEMD_USER === '0' ? [] : ['--user']),
        '--unit=cairn-upgrade', '--collect', '-p', 'KillMode=mixed', '-p', 'TimeoutStopSec=300', '-p', 'OnFailure=cairn-recover.service',
        '-p', `StandardOutput=append:${log}`, '-p', `StandardError=append:${log}`,
        '-E', `CAIRN_ROOT=${layout.root}`,
        ...Object.entries(runEnv).flatMap(([k, v]) => ['-E', `${k}=${v}`]),
        process.execPath, ...args,
      ];
      const child = spawn(systemdRun, unitArgs, { stdio: ['ignore', fd, fd], env });
      exited = await new Promise<number | null>((resolve) => {
        child.on('error', () => resolve(127));
        child.on('close', (code) => resolve(code));
      });
      if (exited !== 0) {
        // The unit name is fixed: a second start while one lives is systemd's own "already running".
        const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
        if (/already (exists|loaded|active)/i.test(text)) throw new LaunchRefused(BUSY_MESSAGE, true);
        throw new LaunchRefused(`systemd-run could not start the upgrade unit (exit ${exited}): ${text.trim().split('\n').pop() ?? ''}`, false);
      }
      exited = undefined; // systemd-run returned once the unit started; the run itself goes on.
    } else {
      via = 'process';
      const child = spawn(process.execPath, args, { cwd: layout.shared, detached: true, stdio: ['ignore', fd, fd], env: releaseEnv(layout, runEnv) });
      child.on('exit', (code) => (exited = code));
      child.on('error', () => (exited = 127));
      child.unref();
    }
  } finally {
    closeSync(fd);
  }

  const deadline = Date.now() + CONFIRM_TIMEOUT_MS;
  for (;;) {
    if (readJournal(layout.journalFile)?.id === runId) return { run_id: runId, log, via };
    const refused = refusalIn(log);
    if (refused) throw new LaunchRefused(refused, refused.startsWith(BUSY_MESSAGE));
    if (exited !== undefined) {
      // It ended without a journal and without saying why: let the output say it.
      await sleep(50);
      const late = refusalIn(log);
      throw new LaunchRefused(late ?? `The upgrade process ended (exit ${exited}) before it started the run; see ${log}.`, late?.startsWith(BUSY_MESSAGE) ?? false);
    }
    if (Date.now() > deadline) throw new LaunchRefused(`The upgrade process did not start its run within ${CONFIRM_TIMEOUT_MS / 1000} s; see ${log}.`, false);
    await sleep(100);
  }
}
