// A listening socket handed to `cairn serve` by whoever started it: the upgrade engine's maintenance responder
// (CAIRN_LISTEN_FD=3) or systemd socket activation (LISTEN_FDS with LISTEN_PID = this process). Serving on it
// means no connection is refused while the process starts.
export function inheritedListenFd(env: NodeJS.ProcessEnv = process.env): number | null {
  if (env.CAIRN_LISTEN_FD && /^\d+$/.test(env.CAIRN_LISTEN_FD)) return Number(env.CAIRN_LISTEN_FD);
  if (env.LISTEN_FDS && Number(env.LISTEN_FDS) >= 1 && Number(env.LISTEN_PID) === process.pid) return 3;
  return null;
}
