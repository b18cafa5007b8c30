/**
 * Who is running a crawl, and whether they still are. A run records its owner as
 * `{pid}@{machine}#{nonce}` and a heartbeat. A run whose owner is a dead process on this machine
 * is taken over at once (a crash or a SIGKILL needs no waiting out); otherwise the owner counts as
 * alive until its heartbeat is older than the lease.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

const OWNER = /^(\d+)@(.*)#([^#]*)$/;

/** A new owner id for a crawler in this process. */
export function newOwner(): string {
  return `${process.pid}@${hostname()}#${randomUUID().slice(0, 8)}`;
}

export function ownerIsAlive(owner: string, heartbeatAt: number | null, now: number, leaseMs: number): boolean {
  const fresh = heartbeatAt !== null && now - heartbeatAt < leaseMs;
  const match = OWNER.exec(owner);
  if (match === null || match[2] !== hostname()) return fresh;
  const pid = Number(match[1]);
  // Another crawler in this very process: only its heartbeat can tell.
  if (pid === process.pid) return fresh;
  return processExists(pid);
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
