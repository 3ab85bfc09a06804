// Runs a command of a release (`node <release>/bin/cairn.mjs ...`) with the install's environment. Output goes
// to the run's log and the last lines come back for the journal; the child's pid is reported first so a killed
// engine's recovery can stop a child it left behind.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { releaseEnv, type InstallLayout } from '../../install/layout.ts';

export class CommandError extends Error {
  constructor(
    message: string,
    readonly output: string,
  ) {
    super(message);
  }
}

const TAIL_CHARS = 4000;

export function tail(text: string, chars = TAIL_CHARS): string {
  return text.length > chars ? `…${text.slice(-chars)}` : text;
}

export async function runRelease(
  layout: InstallLayout,
  releaseDir: string,
  args: string[],
  opts: { log?: string; onSpawn?: (pid: number) => void; extraEnv?: Record<string, string> } = {},
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [join(releaseDir, 'bin', 'cairn.mjs'), ...args], {
      cwd: layout.shared,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: releaseEnv(layout, opts.extraEnv),
    });
    if (child.pid !== undefined) opts.onSpawn?.(child.pid);
    let out = '';
    const collect = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      out = tail(out + text, 64_000);
      if (opts.log) appendFileSync(opts.log, text);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', (err) => reject(new CommandError(`cairn ${args.join(' ')} could not start: ${err.message}`, out)));
    child.on('close', (code, signal) => {
      if (code === 0) resolve(out);
      else reject(new CommandError(`cairn ${args.join(' ')} failed (${signal ? `signal ${signal}` : `exit ${code}`}): ${lastLine(out)}`, tail(out)));
    });
  });
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return lines[lines.length - 1] ?? '';
}
