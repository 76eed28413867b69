/**
 * CPU spent by the bench server and by the local Postgres while an endpoint is under load, per
 * request (Linux /proc; on another system, or a Postgres elsewhere, the figures are absent). With
 * the app, Postgres and the load generator sharing the machine's cores, this is where each
 * request's time goes: the ratio of an endpoint to its own floor follows from it.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime; with `reaped`, also the CPU of the children it has waited for (cutime + cstime) */
function ticksOf(pid: number | string, reaped = false): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]) + (reaped ? Number(fields[13]) + Number(fields[14]) : 0);
}

/**
 * CPU ticks of every postgres process, the CPU of the ones that have ended included: the
 * postmaster reaps its children (backends whose client left, autovacuum workers), and their time
 * then shows in its cutime/cstime. So the difference of two sums counts a process that ended
 * between them exactly once.
 */
function postgresTicks(): number {
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres')) total += ticksOf(pid, true);
    } catch {
      /* gone meanwhile */
    }
  }
  return total;
}

function machineTicks(): { idle: number; all: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { idle: f[3]! + f[4]!, all: f.reduce((a, b) => a + b, 0) };
}

export interface CpuShare {
  /** ms of CPU per request: the bench server (app), every postgres process, the load generator */
  appMs: number | null;
  pgMs: number | null;
  loadMs: number;
  /** share of the machine's CPU time left idle during the load */
  idle: number | null;
  /** the app server's main thread (the event loop): share of the time on a CPU, and runnable but waiting for one */
  appThread: { onCpu: number; waiting: number } | null;
}

/**
 * Nanoseconds the process's main thread ran and waited runnable (/proc/<pid>/task/<pid>/schedstat;
 * a Postgres backend has no other thread), or null when it has ended
 */
export function schedOf(pid: number): [number, number] | null {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    return [run!, wait!];
  } catch {
    return null;
  }
}

/** Starts counting; the returned function takes the number of requests served meanwhile. */
export function cpuMeter(serverPid: number | undefined): (requests: number) => CpuShare {
  const linux = process.platform === 'linux';
  const app0 = linux && serverPid ? ticksOf(serverPid) : null;
  const pg0 = linux ? postgresTicks() : null;
  const m0 = linux ? machineTicks() : null;
  const self0 = process.cpuUsage();
  const sched0 = linux && serverPid ? schedOf(serverPid) : null;
  const t0 = process.hrtime.bigint();
  return (requests) => {
    const wallNs = Number(process.hrtime.bigint() - t0);
    const sched1 = sched0 ? schedOf(serverPid!) : null;
    const n = Math.max(1, requests);
    const self = process.cpuUsage(self0);
    const m1 = m0 ? machineTicks() : null;
    const pg = pg0 !== null ? postgresTicks() - pg0 : null;
    return {
      appMs: app0 !== null ? ((ticksOf(serverPid!) - app0) * TICK_MS) / n : null,
      pgMs: pg !== null && pg > 0 ? (pg * TICK_MS) / n : null,
      loadMs: (self.user + self.system) / 1000 / n,
      idle: m0 && m1 ? (m1.idle - m0.idle) / Math.max(1, m1.all - m0.all) : null,
      appThread:
        sched0 && sched1
          ? { onCpu: (sched1[0] - sched0[0]) / wallNs, waiting: (sched1[1] - sched0[1]) / wallNs }
          : null,
    };
  };
}
