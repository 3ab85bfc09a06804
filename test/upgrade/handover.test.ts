// The hand-over to the new release's own upgrade stage (SPEC "Versioning" 4) at its edges, on one real install:
// a stage speaking another protocol, a stage that refuses the hello or dies right after it, and a release older
// than the hand-over (no `upgrade stage` at all), which the running engine then upgrades to by itself. The stage
// doubles are the real vN+1 bundle with its launcher wrapped (stage-double.ts). The failing cases stop before
// anything stops, so they come first; the successful upgrade comes last (it leaves vN+1 installed).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal, STEPS, type Journal } from '../../src/upgrade/engine/journal.ts';
import { STAGE_PROTOCOL } from '../../src/upgrade/engine/stage-protocol.ts';
import { buildBundles, installRelease, type Bundles, type Install } from './install.ts';
import { expectConsistent } from './expect.ts';
import { FOREIGN_PROTOCOL, stageDoubleBundle, type StageMode } from './stage-double.ts';

let bundles: Bundles;
let inst: Install;
let double: { bundle: string; remove: () => void };
let devices: number;

beforeAll(async () => {
  bundles = await buildBundles();
  [inst, double] = await Promise.all([installRelease(bundles.vN, bundles.versionN), stageDoubleBundle(bundles.vN1)]);
  devices = ((await inst.api('/api/devices/?limit=1')).body as { count: number }).count;
  expect(devices).toBeGreaterThan(0);
}, 900_000);

afterAll(async () => {
  await inst?.close();
  double?.remove();
}, 120_000);

async function upgradeWith(mode: StageMode): Promise<{ code: number | null; out: string; journal: Journal }> {
  const run = await inst.cairn(['upgrade', 'bundle', double.bundle], { CAIRN_TEST_STAGE: mode });
  const journal = readJournal(inst.layout.journalFile);
  expect(journal, run.out).not.toBeNull();
  return { ...run, journal: journal! };
}

/** A run that ended before anything stopped: vN serves from the same web process, nothing of vN+1 is left. */
async function expectNothingChanged(journal: Journal, webPid: number | null): Promise<void> {
  expect(journal).toMatchObject({ state: 'failed', versionFrom: bundles.versionN, versionTo: bundles.versionN1 });
  expect(journal.outcome).toEqual({ code: 'unchanged', database: 'unchanged', services: 'running' });
  expect(journal.steps.map((s) => s.name)).not.toContain('quiesce');
  expect(journal.context.servicesBefore).toBeNull();
  expect(inst.host.pidOf('web')).toBe(webPid);
  expect(existsSync(join(inst.layout.releases, bundles.versionN1))).toBe(false);
  await expectConsistent(inst, bundles.versionN, devices);
}

describe('hand-over to the new release’s upgrade stage', () => {
  it('a stage that does not accept our protocol is refused at prepare, before anything stops', async () => {
    const webPid = inst.host.pidOf('web');
    expect(webPid).not.toBeNull();
    const { code, out, journal } = await upgradeWith('foreign');
    expect(code, out).toBe(1);
    expect(journal.failedStep).toBe('prepare');
    expect(journal.error).toContain(`accepts protocol ${FOREIGN_PROTOCOL}, this engine speaks ${STAGE_PROTOCOL}`);
    expect(journal.error).toContain(`upgrade stage of ${bundles.versionN1}`);
    expect(out).toContain(`accepts protocol ${FOREIGN_PROTOCOL}, this engine speaks ${STAGE_PROTOCOL}`);
    await expectNothingChanged(journal, webPid);
  }, 300_000);

  it('a stage that refuses the hello: the launcher rolls back, and the journal gives the stage’s reason', async () => {
    const webPid = inst.host.pidOf('web');
    const { code, out, journal } = await upgradeWith('refuse');
    expect(code, out).toBe(1);
    expect(journal.context.stage).toMatchObject({ release: bundles.versionN1, protocol: STAGE_PROTOCOL });
    // The reason came over IPC after the hello: it names the run the hello named.
    expect(journal.error).toBe(`the upgrade stage of ${bundles.versionN1} refused to take over: test double refuses run ${journal.id}`);
    expect(out).toContain(`Rolling back: ${journal.error}`);
    await expectNothingChanged(journal, webPid);
  }, 300_000);

  it('a stage that dies right after the hello: the launcher rolls back as recovery would', async () => {
    const webPid = inst.host.pidOf('web');
    const { code, out, journal } = await upgradeWith('die');
    expect(code, out).toBe(1);
    expect(journal.error).toBe(`the upgrade stage of ${bundles.versionN1} ended without finishing the run (signal SIGKILL)`);
    expect(out).toContain(`Rolling back: ${journal.error}`);
    await expectNothingChanged(journal, webPid);
  }, 300_000);

  it('a release without an upgrade stage is upgraded to by the running engine alone', async () => {
    const { code, out, journal } = await upgradeWith('none');
    expect(code, out).toBe(0);
    expect(journal).toMatchObject({ state: 'done', failedStep: null, versionFrom: bundles.versionN, versionTo: bundles.versionN1 });
    expect(journal.outcome).toEqual({ code: 'new', database: 'migrated', services: 'running' });
    expect(journal.context.stage).toBeNull();
    expect(journal.warnings).toContain(`Release ${bundles.versionN1} has no upgrade stage of its own: the engine of ${bundles.versionN} carried out the whole run.`);
    // Every step, quiesce to done included, was vN's.
    expect(journal.steps.map((s) => `${s.name}:${s.engine}`)).toEqual(STEPS.map((name) => `${name}:${bundles.versionN}`));
    expect(out).not.toContain('takes over (protocol');
    await expectConsistent(inst, bundles.versionN1, devices);
  }, 600_000);
});
