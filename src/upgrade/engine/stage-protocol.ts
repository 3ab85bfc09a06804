// The versioned protocol between the engine of the release that runs (the launcher) and the new release's own
// upgrade stage, which carries out the run from quiesce on (SPEC "Versioning" 4: an upgrade fix reaches the
// upgrade to that release). The launcher asks `cairn upgrade stage --protocols` first, then starts
// `cairn upgrade stage` with an IPC channel and sends one hello; the journal file is the shared state.
//
// Protocol 1: the journal is the JSON document of engine/journal.ts; the hello names the install root, the run
// and the run's secret (its hash is in the lock file). A release that changes what the journal means raises
// STAGE_PROTOCOL and lists the older protocols it can still take over from in ACCEPTED_CALLER_PROTOCOLS.

export const STAGE_PROTOCOL = 1;
export const ACCEPTED_CALLER_PROTOCOLS: readonly number[] = [1];

/** Exit code of a stage that refuses its caller (unknown protocol, not the lock owner, not this run). */
export const STAGE_REFUSED_EXIT = 3;

export interface StageHello {
  protocol: number;
  root: string;
  runId: string;
  token: string;
}

export interface StageAnswer {
  release: string;
  protocols: number[];
}

/** The hello as sent, or the reason it is not one (the stage refuses it). */
export function parseHello(message: unknown): StageHello | string {
  if (typeof message !== 'object' || message === null) return 'the hand-over message is not an object';
  const m = message as Record<string, unknown>;
  if (!Number.isInteger(m.protocol)) return 'the hand-over message names no protocol';
  for (const key of ['root', 'runId', 'token'] as const) if (typeof m[key] !== 'string' || !m[key]) return `the hand-over message has no ${key}`;
  return { protocol: m.protocol as number, root: m.root as string, runId: m.runId as string, token: m.token as string };
}

export function parseAnswer(text: string): StageAnswer | null {
  try {
    const a = JSON.parse(text.trim().split('\n').pop() ?? '') as Partial<StageAnswer>;
    if (typeof a.release !== 'string' || !Array.isArray(a.protocols) || !a.protocols.every((p) => Number.isInteger(p))) return null;
    return { release: a.release, protocols: a.protocols };
  } catch {
    return null;
  }
}
