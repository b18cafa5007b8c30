import { describe, expect, it } from 'vitest';
import type { EgressRecord } from '../gate/index.js';
import { EgressLog } from './egress-log.js';

const record = (hostId: string, origin: string, decision: 'allow' | 'refuse', at = 0): EgressRecord => ({
  at: new Date(at).toISOString(),
  hostId,
  origin,
  method: 'GET',
  decision,
  durationMs: 1,
  hop: 0,
  attempt: 0,
  credentialed: decision === 'allow',
});

describe('EgressLog', () => {
  it('keeps the latest attempts only, and every origin each host was allowed to reach', () => {
    const log = new EgressLog(3);
    log.record(record('home/a', 'https://one.example', 'allow', 1));
    log.record(record('home/a', 'https://evil.example', 'refuse', 2));
    log.record(record('home/b', 'https://two.example', 'allow', 3));
    log.record(record('home/a', 'https://three.example', 'allow', 4));
    log.record(record('home/a', 'https://one.example', 'allow', 5));
    expect(log.recent().map((entry) => entry.at)).toEqual([3, 4, 5].map((at) => new Date(at).toISOString()));
    expect(log.recent('home/a')).toHaveLength(2);
    expect(log.originsUsed('home/a')).toEqual(['https://one.example', 'https://three.example']);
    expect(log.originsUsed('home/b')).toEqual(['https://two.example']);
    expect(log.originsUsed('home/c')).toEqual([]);
  });
});
