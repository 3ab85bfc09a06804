#!/usr/bin/env node
// What a CI run cost the machine, and how fast the machine is, so runs on different machines compare: `.ci/run`'s
// wall time alone cannot tell a grown suite from a slow machine (runs took 612 to 818 s on machines of one kind, and
// one tree 643 to 755 s on one machine in one evening). Linux only (/proc); elsewhere it prints nothing.
//
//   node scripts/machine-figures.mjs start FILE   measures the machine, prints it, keeps the counters in FILE
//   node scripts/machine-figures.mjs end FILE     prints what the machine did since `start`
//
// The machine's two figures, each in CPU-s of this process:
// - a fixed JavaScript loop (the CPU's speed for the suite's own work);
// - 256 MB of fresh memory touched once, a page at a time: the cost of a page fault, which on the virtual machines
//   CI runs on is dear (11 µs a 4 KB page on one, against well under one on bare metal) and which the suite pays
//   some ten million times a run (its processes start, grow and exit by the hundred). Measured with transparent huge
//   pages as the host has them when the run starts; `.ci/run` turns them on afterwards.
import { readFileSync, writeFileSync } from 'node:fs';

const [mode, file] = process.argv.slice(2);
if (!['start', 'end'].includes(mode) || !file) {
  console.error('usage: node scripts/machine-figures.mjs start|end FILE');
  process.exit(2);
}

/** The machine's counters: CPU time in clock ticks (all cores), and page faults, since boot. */
function counters() {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = cpu;
    const vm = Object.fromEntries(readFileSync('/proc/vmstat', 'utf8').trim().split('\n').map((l) => l.split(' ')).map(([k, v]) => [k, Number(v)]));
    return { at: Date.now(), busy: user + nice + system + irq + softirq, system, idle: idle + iowait, steal: steal ?? 0, faults: vm.pgfault ?? 0, majorFaults: vm.pgmajfault ?? 0 };
  } catch {
    return null;
  }
}

/** CPU-s this process spent in `work`. */
function cpuSeconds(work) {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6;
}

// Clock ticks a second: 100 on every Linux build this runs on (USER_HZ; /proc reports in it whatever the kernel's HZ).
const TICKS = 100;
const round = (n) => Math.round(n).toLocaleString('en');

if (mode === 'start') {
  // Without /proc there is nothing to compare at the end: no figures at all.
  if (!counters()) process.exit(0);
  // x is read after the loop (below), so the compiler cannot drop it.
  let x = 0;
  const loop = cpuSeconds(() => {
    for (let i = 0; i < 1e8; i++) x = (x * 31 + i) % 1000003;
  });
  const touch = cpuSeconds(() => {
    const memory = Buffer.allocUnsafeSlow(256 * 1024 * 1024);
    for (let i = 0; i < memory.length; i += 4096) memory[i] = 1;
  });
  if (!Number.isFinite(x)) throw new Error('unreachable');
  let thp = 'unknown';
  try {
    thp = readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8').match(/\[(\w+)\]/)?.[1] ?? thp;
  } catch {}
  console.log(`== this machine: a JavaScript loop took ${loop.toFixed(2)} CPU-s, a first touch of 256 MB ${touch.toFixed(2)} (transparent huge pages: ${thp})`);
  writeFileSync(file, JSON.stringify(counters()));
} else {
  const end = counters();
  let start = null;
  try {
    start = JSON.parse(readFileSync(file, 'utf8'));
  } catch {}
  if (!end || !start) process.exit(0);
  const wall = (end.at - start.at) / 1000;
  const busy = (end.busy - start.busy) / TICKS;
  const idle = (end.idle - start.idle) / TICKS;
  const steal = (end.steal - start.steal) / TICKS;
  console.log(
    `== the run cost the machine ${round(busy)} CPU-s in ${round(wall)} s (${round((end.system - start.system) / TICKS)} of them in the kernel; ` +
      `${round(idle)} core-s idle${steal ? `, ${round(steal)} stolen by the host` : ''}), ${((end.faults - start.faults) / 1e6).toFixed(1)} million page faults (${round(end.majorFaults - start.majorFaults)} from disk)`,
  );
}
