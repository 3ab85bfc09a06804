// Where the CPU of a load run goes, for the load benchmark: this process (the server and the load generator's
// thread), PostgreSQL's processes, and the machine as a whole. Read from /proc, so Linux only and PostgreSQL on
// this machine; elsewhere the readings are null and the benchmark prints none.
import { readdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

const TICK_MS = (() => {
  const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const hz = Number(out.stdout?.trim());
  return Number.isFinite(hz) && hz > 0 ? 1000 / hz : 10;
})();

/** CPU ticks of each process named postgres, by pid; null without /proc. */
function postgresTicks(): Map<string, number> | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  const ticks = new Map<string, number>();
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone since the listing
    }
    const close = stat.lastIndexOf(')');
    if (!stat.slice(stat.indexOf('(') + 1, close).startsWith('postgres')) continue;
    const fields = stat.slice(close + 2).split(' ');
    ticks.set(pid, Number(fields[11]) + Number(fields[12])); // utime, stime
  }
  return ticks;
}

/**
 * PostgreSQL's CPU between two readings, in ms: per process, so a connection closed in between does not take its
 * past time out of the sum (its time since the first reading is lost with it: a lower bound).
 */
function postgresSpentMs(before: Map<string, number> | null, after: Map<string, number> | null): number | null {
  if (!before || !after) return null;
  let ticks = 0;
  for (const [pid, t] of after) ticks += Math.max(0, t - (before.get(pid) ?? 0));
  return ticks * TICK_MS;
}

/** Busy and total jiffies of the whole machine; null without /proc. */
function machineTicks(): { busy: number; total: number } | null {
  try {
    const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
    const n = values.slice(0, 8).map(Number);
    const idle = n[3]! + n[4]!; // idle, iowait
    const total = n.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

export interface CpuReading {
  wallMs: number;
  /** This process: the server's thread and the load generator's thread together. */
  processMs: number;
  postgresMs: number | null;
  /** Share of the machine's CPUs busy over the span (every process), 0–1. */
  machineBusy: number | null;
  /** Share of the span the server's event loop was busy, 0–1. */
  eventLoop: number;
}

/** Starts measuring; the returned function reads what was spent since. */
export function startCpuMeter(): () => CpuReading {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const pg = postgresTicks();
  const machine = machineTicks();
  const elu = performance.eventLoopUtilization();
  return () => {
    const used = process.cpuUsage(cpu);
    const pgNow = postgresTicks();
    const machineNow = machineTicks();
    return {
      wallMs: performance.now() - wall,
      processMs: (used.user + used.system) / 1000,
      postgresMs: postgresSpentMs(pg, pgNow),
      machineBusy: machine && machineNow ? (machineNow.busy - machine.busy) / Math.max(1, machineNow.total - machine.total) : null,
      eventLoop: performance.eventLoopUtilization(elu).utilization,
    };
  };
}
