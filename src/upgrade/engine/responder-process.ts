// `cairn upgrade responder`: the maintenance responder as its own process (see host/handover.ts). It serves
// the socket it inherited as fd 3, or binds the web port itself when no web process was running. Its pid file
// is <root>/shared/run/responder.pid.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { drainAndClose, inheritedListenFd, serverFd } from '../host/handover.ts';
import { releaseEnv, webAddress, type InstallLayout } from '../../install/layout.ts';
import { processStartTime } from '../../install/lock.ts';
import { maintenanceAnswer } from './maintenance-answer.ts';

const WEB_READY_TIMEOUT_MS = 300_000;

export async function runResponderProcess(layout: InstallLayout, version: string): Promise<void> {
  const server = createServer(maintenanceAnswer(layout, version));
  const fd = inheritedListenFd();
  const { host, port } = webAddress(layout);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (fd !== null) server.listen({ fd } as unknown as { port: number }, resolve);
    else server.listen({ host, port, exclusive: true }, resolve);
  });
  mkdirSync(layout.runDir, { recursive: true });
  const pidFile = join(layout.runDir, 'responder.pid');
  writeFileSync(pidFile, JSON.stringify({ pid: process.pid, pidStart: processStartTime(process.pid) }));
  // The web process that spawned us may stop now.
  if (process.send) {
    process.send({ ready: true });
    process.disconnect();
  }

  let handing = false;
  const exit = () => {
    rmSync(pidFile, { force: true });
    process.exit(0);
  };
  process.on('SIGTERM', () => {
    if (!handing) server.close(exit);
    server.closeAllConnections();
  });
  process.on('SIGUSR2', () => {
    if (handing) return;
    handing = true;
    const socket = serverFd(server);
    if (socket === null) return void server.close(exit);
    const log = openSync(join(layout.runDir, 'web.log'), 'a');
    const web = spawn(process.execPath, [join(layout.current, 'bin', 'cairn.mjs'), 'serve'], {
      cwd: layout.shared,
      detached: true,
      stdio: ['ignore', log, log, socket, 'ipc'],
      env: releaseEnv(layout, { CAIRN_LISTEN_FD: '3' }),
    });
    closeSync(log);
    writeFileSync(join(layout.runDir, 'web.pid'), JSON.stringify({ pid: web.pid, pidStart: processStartTime(web.pid!) }));
    // Keep answering until the new web listens (it says so over IPC), or it died: then the port goes with us
    // only after it is clear nobody will serve it.
    const done = () => {
      web.removeAllListeners();
      if (web.connected) web.disconnect();
      web.unref();
      // The new web accepts on the same socket now; what we accepted last is still answered (503), not reset.
      drainAndClose(server, exit);
    };
    const timer = setTimeout(done, WEB_READY_TIMEOUT_MS);
    web.once('message', () => {
      clearTimeout(timer);
      done();
    });
    web.once('exit', () => {
      clearTimeout(timer);
      // The new web died before listening: stay and keep answering 503; the engine sees no health and rolls back.
      handing = false;
    });
  });
}
