// A run killed with SIGKILL (CAIRN_UPGRADE_PAUSE_AT stops it dead right after a step's work; the test stands in
// for the power cut), the lock while it lives, the refusals while it waits, and `cairn upgrade recover`.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal, type StepName } from '../../src/upgrade/engine/journal.ts';
import { processAlive } from '../../src/install/lock.ts';
import { currentRelease } from '../../src/install/layout.ts';
import { buildBundles, installRelease, type Bundles, type Install } from './install.ts';
import { expectConsistent } from './expect.ts';

let bundles: Bundles;
let inst: Install;
let devices: number;

beforeAll(async () => {
  bundles = await buildBundles();
  inst = await installRelease(bundles.vN, bundles.versionN);
  devices = ((await inst.api('/api/devices/?limit=1')).body as { count: number }).count;
}, 900_000);

afterAll(async () => {
  await inst?.close();
}, 120_000);

const BUSY = 'An upgrade is already running.';

/** Starts an upgrade that stops dead after `step`; resolves once it sits there. */
async function pausedAt(step: StepName): Promise<ChildProcess> {
  const paused = join(inst.layout.upgradeDir, 'paused');
  rmSync(paused, { force: true });
  const child = inst.spawnCairn(['upgrade', 'bundle', bundles.vN1], { CAIRN_UPGRADE_PAUSE_AT: step });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 600_000;
  while (!existsSync(paused)) {
    if (child.exitCode !== null) throw new Error(`the upgrade ended before pausing at ${step}: ${out}`);
    if (Date.now() > deadline) throw new Error(`the upgrade never reached ${step}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(readFileSync(paused, 'utf8')).toContain(step);
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
}

describe('one upgrade at a time', () => {
  it('refuses a second upgrade, a recovery and a lock clearing while a run lives; after its death, until recovered', async () => {
    const child = await pausedAt('backup');
    const second = await inst.cairn(['upgrade', 'bundle', bundles.vN1]);
    expect(second.code).toBe(1);
    expect(second.out).toContain(BUSY);
    const recover = await inst.cairn(['upgrade', 'recover']);
    expect(recover.code).toBe(1);
    expect(recover.out).toContain(BUSY);
    const restart = await inst.cairn(['services', 'restart']);
    expect(restart.code).toBe(1);
    expect(restart.out).toContain(BUSY);
    const cancel = await inst.api('/api/system/upgrade/cancel/', 'POST', {});
    expect(cancel).toMatchObject({ status: 409, body: { detail: BUSY } });

    await kill(child);
    expect(readJournal(inst.layout.journalFile)?.state).toBe('running');
    const afterDeath = await inst.cairn(['upgrade', 'bundle', bundles.vN1]);
    expect(afterDeath.code).toBe(1);
    expect(afterDeath.out).toContain(`${BUSY} An interrupted upgrade must be recovered first: cairn upgrade recover`);
    expect((await inst.api('/api/system/upgrade/cancel/', 'POST', {})).status).toBe(409);
    expect((await inst.cairn(['services', 'restart'])).out).toContain(BUSY);

    const recovered = await inst.cairn(['upgrade', 'recover']);
    expect(recovered.code, recovered.out).toBe(0);
    expect(readJournal(inst.layout.journalFile)).toMatchObject({ state: 'failed', failedStep: 'backup', outcome: { code: 'unchanged' } });
    await expectConsistent(inst, bundles.versionN, devices);
    expect((await inst.api('/api/system/upgrade/cancel/', 'POST', {})).body).toEqual({ cleared: true, had_lock: false });
  }, 900_000);

  it('a stale lock (dead owner) is cleared by recovery and by the cancel call', async () => {
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.once('exit', r));
    const lock = JSON.stringify({ pid: dead.pid, pidStart: null, acquiredAt: new Date().toISOString(), purpose: 'upgrade', tokenSha256: null });
    writeFileSync(inst.layout.lockFile, lock);
    const r = await inst.cairn(['upgrade', 'recover']);
    expect(r.out).toContain('Nothing to recover.');
    expect(existsSync(inst.layout.lockFile)).toBe(false);
    writeFileSync(inst.layout.lockFile, lock);
    expect((await inst.api('/api/system/upgrade/cancel/', 'POST', {})).body).toEqual({ cleared: true, had_lock: true });
  }, 300_000);
});

describe('SIGKILL of the run, then `cairn upgrade recover`', () => {
  it('killed after migrating: the site answers 503 meanwhile; recovery restores the database and runs vN', async () => {
    const child = await pausedAt('migrate');
    await kill(child);
    // The new release's stage ran migrate; it dies with the run it was handed (like an exec), leaving one dead run.
    const stage = readJournal(inst.layout.journalFile)!.context.stage!;
    expect(stage).toMatchObject({ release: bundles.versionN1, protocol: 1 });
    expect(readFileSync(join(inst.layout.upgradeDir, 'paused'), 'utf8')).toContain(`${stage.pid} migrate`);
    for (let i = 0; i < 100 && processAlive(stage.pid!); i++) await new Promise((r) => setTimeout(r, 50));
    expect(processAlive(stage.pid!)).toBe(false);
    const held = await inst.api('/api/devices/?limit=1');
    expect(held.status).toBe(503);
    expect(held.headers['retry-after']).toBeDefined();
    const recovered = await inst.cairn(['upgrade', 'recover']);
    expect(recovered.code, recovered.out).toBe(0);
    expect(readJournal(inst.layout.journalFile)).toMatchObject({ state: 'failed', failedStep: 'migrate', outcome: { code: 'restored', database: 'restored' } });
    await expectConsistent(inst, bundles.versionN, devices);
  }, 900_000);

  it('killed after resume: recovery keeps the new release and finishes', async () => {
    const child = await pausedAt('resume');
    await kill(child);
    const recovered = await inst.cairn(['upgrade', 'recover']);
    expect(recovered.code, recovered.out).toBe(0);
    expect(readJournal(inst.layout.journalFile)).toMatchObject({ state: 'done', outcome: { code: 'new', database: 'migrated' } });
    await expectConsistent(inst, bundles.versionN1, devices);
  }, 900_000);
});

describe('the hand-over protocol', () => {
  /** Starts the installed release's stage with an IPC channel, as an engine would, and sends it a hello. */
  async function stageWith(hello: Record<string, string | number>): Promise<{ code: number | null; out: string; message: unknown }> {
    const child = spawn(process.execPath, [join(inst.layout.current, 'bin', 'cairn.mjs'), 'upgrade', 'stage'], {
      cwd: inst.layout.shared,
      env: { ...process.env, CAIRN_ROOT: inst.layout.root },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let out = '';
    let message: unknown = null;
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('message', (m) => (message = m));
    child.send(hello);
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    return { code, out, message };
  }

  it('a stage lists the protocols it accepts, and refuses an engine speaking another one or not holding the lock', async () => {
    const listed = await inst.cairn(['upgrade', 'stage', '--protocols']);
    const running = currentRelease(inst.layout)!.version;
    expect(JSON.parse(listed.out)).toEqual({ release: running, protocols: [1] });

    const future = await stageWith({ protocol: 99, root: inst.layout.root, runId: 'r', token: 't' });
    expect(future.code).toBe(3);
    expect(future.out).toContain('takes over from engines speaking protocol 1, not 99');
    expect(future.message).toMatchObject({ refused: expect.stringContaining('not 99') });

    const stranger = await stageWith({ protocol: 1, root: inst.layout.root, runId: 'r', token: 't' });
    expect(stranger.code).toBe(3);
    expect(stranger.out).toContain('the caller does not hold the upgrade lock');

    const byHand = await inst.cairn(['upgrade', 'stage']);
    expect(byHand.code).toBe(2);
    expect(byHand.out).toContain('is started by the upgrade engine of the running release');
    await expectConsistent(inst, running, devices);
  }, 300_000);
});
