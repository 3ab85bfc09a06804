// The launcher's side of the hand-over (stage-protocol.ts): after prepare, the engine of the release that runs
// asks the unpacked new release which launcher protocols its stage accepts, then starts that stage and waits for
// it to end the run. The stage is this process's child and dies with it (a SIGKILL of the run kills both), so
// recovery finds one dead run, as before the hand-over existed.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CommandError, runRelease } from './commands.ts';
import { commandOptions, save, type EngineContext } from './context.ts';
import { readJournal, type Journal } from './journal.ts';
import { rollBackInterrupted } from './recover.ts';
import { parseAnswer, STAGE_PROTOCOL, STAGE_REFUSED_EXIT, type StageAnswer, type StageHello } from './stage-protocol.ts';

/**
 * What the new release's stage accepts; null when the release predates the hand-over (it has no `upgrade stage`
 * command), in which case this engine carries out the whole run itself.
 */
export async function stageProtocols(ctx: EngineContext): Promise<StageAnswer | null> {
  let out: string;
  try {
    out = await runRelease(ctx.layout, ctx.journal.context.newRelease!, ['upgrade', 'stage', '--protocols'], commandOptions(ctx));
  } catch (err) {
    if (err instanceof CommandError && /unknown (command|option)/.test(err.output)) return null;
    throw err;
  }
  const answer = parseAnswer(out);
  if (!answer) throw new Error(`the new release's upgrade stage answered something that is not a protocol list: ${out.trim().slice(-300)}`);
  return answer;
}

/** Refuses a stage that does not speak this launcher's protocol, before anything stops. */
export function checkStage(answer: StageAnswer): void {
  if (!answer.protocols.includes(STAGE_PROTOCOL)) {
    throw new Error(
      `the upgrade stage of ${answer.release} does not take over from this release's engine (it accepts protocol ${answer.protocols.join(', ') || 'none'}, this engine speaks ${STAGE_PROTOCOL}): upgrade with the new bundle's deploy/install.sh`,
    );
  }
}

/** Starts the new release's stage, hands it the run and returns the journal as the stage left it. */
export async function handOver(ctx: EngineContext): Promise<Journal> {
  const { layout, journal } = ctx;
  const env: NodeJS.ProcessEnv = { ...ctx.env, CAIRN_ROOT: layout.root };
  delete env.CAIRN_LISTEN_FD;
  const child = spawn(process.execPath, [join(journal.context.newRelease!, 'bin', 'cairn.mjs'), 'upgrade', 'stage'], {
    cwd: layout.shared,
    env,
    // The stage prints its steps on our terminal; the IPC channel carries the hello and tells it when we die.
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let refusal = '';
  child.on('message', (m: unknown) => {
    if (typeof m === 'object' && m !== null && typeof (m as { refused?: unknown }).refused === 'string') refusal = (m as { refused: string }).refused;
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('error', () => resolve({ code: null, signal: null }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  journal.context.stage = { release: journal.versionTo!, protocol: STAGE_PROTOCOL, pid: child.pid ?? null };
  save(ctx); // the last write of ours: from the hello on, the stage owns the journal
  const hello: StageHello = { protocol: STAGE_PROTOCOL, root: layout.root, runId: journal.id, token: ctx.engineToken ?? '' };
  child.send(hello, (err) => {
    if (err) child.kill('SIGKILL');
  });
  const { code, signal } = await ended;
  ctx.journal = readJournal(layout.journalFile) ?? journal;
  if (ctx.journal.state === 'running') {
    // The stage refused us or died: what it left is an interrupted run, and we put it back as recovery would.
    const how = code === STAGE_REFUSED_EXIT ? `refused to take over: ${refusal || 'no reason given'}` : `ended without finishing the run (${signal ? `signal ${signal}` : `exit ${code}`})`;
    await rollBackInterrupted(ctx, `the upgrade stage of ${journal.versionTo} ${how}`);
  }
  return ctx.journal;
}
