/**
 * Time zones inside the sandbox: the prelude's Intl.DateTimeFormat, answered by the sandbox
 * process's ICU, run in a real sandbox. The calendar case is the bug that asked for it: an event
 * with `DTSTART;TZID=…` had its local time taken as UTC. Each conversion is checked against the
 * instant V8's own Intl gives here, across both DST changes of 2026.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dateTimeFormatAnswer } from './intl.js';
import type { SandboxedConnector } from './sandboxed-connector.js';
import { SandboxHost } from './host.js';
import { passthroughEgress } from './__fixtures__/egress.js';
import { RUNNER } from './__fixtures__/modules.js';

const host = new SandboxHost({ log: () => undefined });
let runner: SandboxedConnector;

beforeAll(async () => {
  runner = await host.load({ source: RUNNER, label: 'runner', egress: passthroughEgress() });
});
afterAll(() => host.close());

async function run(code: string): Promise<unknown> {
  const page = await runner.list({ prefix: code });
  const extra = page.entries[0]?.extra as { value?: unknown; error?: string };
  if (extra.error !== undefined) throw new Error(extra.error);
  return extra.value;
}

/**
 * What a calendar connector writes (docs/connectors/authoring.md): a zone's offset at an instant
 * from formatToParts, and a wall-clock time in a zone as an instant, by two corrections. A time
 * that does not exist (the hour skipped in spring) lands after the gap; an ambiguous one (the
 * hour repeated in autumn) is the first of the two, as RFC 5545 says.
 */
const ZONED = String.raw`
  const formats = new Map();
  function offsetAt(ms, zone) {
    let f = formats.get(zone);
    if (f === undefined) {
      f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
      formats.set(zone, f);
    }
    const p = {};
    for (const part of f.formatToParts(ms)) p[part.type] = part.value;
    return Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second) - Math.floor(ms / 1000) * 1000;
  }
  function zonedToUtc(local, zone) {
    const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})$/.exec(local);
    const wall = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
    const first = wall - offsetAt(wall, zone);
    const second = wall - offsetAt(first, zone);
    if (second === first) {
      const earlier = wall - offsetAt(first - 3600000, zone);
      return new Date(earlier + offsetAt(earlier, zone) === wall ? Math.min(earlier, first) : first).toISOString();
    }
    return new Date(Math.max(first, second)).toISOString();
  }
`;

describe('Intl.DateTimeFormat in the sandbox', () => {
  it('turns an iCalendar DTSTART with a TZID into the right instant across both DST changes', async () => {
    const event = ['BEGIN:VEVENT', 'DTSTART;TZID=Europe/Berlin:20260328T093000', 'END:VEVENT'].join('\r\n');
    const got = (await run(`${ZONED}
      const line = ${JSON.stringify(event)}.split('\\r\\n').find((l) => l.startsWith('DTSTART'));
      const [, zone, local] = /^DTSTART;TZID=([^:]+):(\\S+)$/.exec(line);
      return [
        zonedToUtc(local, zone),
        zonedToUtc('20260329T093000', 'Europe/Berlin'),
        zonedToUtc('20260329T023000', 'Europe/Berlin'),
        zonedToUtc('20261025T023000', 'Europe/Berlin'),
        zonedToUtc('20261025T033000', 'Europe/Berlin'),
        zonedToUtc('20260308T013000', 'America/New_York'),
        zonedToUtc('20261101T013000', 'America/New_York'),
        zonedToUtc('20260704T120000', 'Asia/Kolkata'),
      ];`)) as string[];
    expect(got).toEqual([
      '2026-03-28T08:30:00.000Z', // CET, UTC+1
      '2026-03-29T07:30:00.000Z', // CEST from 02:00 that morning, UTC+2
      '2026-03-29T01:30:00.000Z', // 02:30 does not exist: after the gap, 03:30 CEST
      '2026-10-25T00:30:00.000Z', // 02:30 happens twice: the first, still CEST
      '2026-10-25T02:30:00.000Z', // CET again
      '2026-03-08T06:30:00.000Z', // EST, before the 02:00 change
      '2026-11-01T05:30:00.000Z', // 01:30 happens twice: the first, still EDT
      '2026-07-04T06:30:00.000Z', // a half-hour zone
    ]);
  });

  it('formats an instant in a zone as V8 does, and defaults to UTC, never the host zone', async () => {
    const instant = Date.UTC(2026, 9, 25, 0, 30);
    const options = { timeZone: 'Europe/Lisbon', dateStyle: 'full', timeStyle: 'long' } as const;
    const got = (await run(`
      const f = new Intl.DateTimeFormat('de-DE', ${JSON.stringify(options)});
      return [f.format(${instant}), f.resolvedOptions().timeZone, f.resolvedOptions().locale,
        new Intl.DateTimeFormat().resolvedOptions().timeZone, new Date(${instant}).getTimezoneOffset(),
        new Date(${instant}).toLocaleString('en-US', { timeZone: 'Asia/Tokyo' }), typeof Intl.supportedValuesOf('timeZone').length,
        Intl.supportedValuesOf('timeZone').includes('Europe/Berlin')];`)) as unknown[];
    expect(got).toEqual([
      new Intl.DateTimeFormat('en-US', options).format(instant),
      'Europe/Lisbon',
      'en-US',
      'UTC',
      0,
      new Date(instant).toLocaleString('en-US', { timeZone: 'Asia/Tokyo' }),
      'number',
      true,
    ]);
  });

  it('refuses an unknown zone and bad options as Intl does, and survives hostile ones', async () => {
    const got = (await run(`
      const errors = [];
      const attempt = (f) => { try { f(); errors.push('no error'); } catch (e) { errors.push(e.name); } };
      attempt(() => new Intl.DateTimeFormat('en-US', { timeZone: 'Mars/Olympus_Mons' }));
      attempt(() => new Intl.DateTimeFormat('en-US', { timeZone: 'x'.repeat(100000) }));
      attempt(() => new Intl.DateTimeFormat('en-US', { hourCycle: 'h99' }));
      attempt(() => new Intl.DateTimeFormat('en-US', { get timeZone() { throw new SyntaxError('getter'); } }));
      attempt(() => new Intl.DateTimeFormat('en-US', 'UTC'));
      attempt(() => new Intl.DateTimeFormat().format(NaN));
      attempt(() => new Intl.DateTimeFormat().format(8.7e15));
      attempt(() => Intl.supportedValuesOf('currency'));
      const weird = new Intl.DateTimeFormat('en-US', { timeZone: { toString: () => 'Europe/Paris' }, unknownOption: 'ignored' });
      return [errors, weird.resolvedOptions().timeZone, new Intl.DateTimeFormat('en-US', { timeZone: 'europe/berlin' }).resolvedOptions().timeZone];`)) as unknown[];
    expect(got).toEqual([['RangeError', 'RangeError', 'RangeError', 'SyntaxError', 'TypeError', 'RangeError', 'RangeError', 'RangeError'], 'Europe/Paris', 'Europe/Berlin']);
  });
});

describe('the sandbox process side', () => {
  it('answers only the listed options, in en-US, Gregorian and Latin digits whatever is asked', () => {
    const resolved = (JSON.parse(dateTimeFormatAnswer(JSON.stringify({ timeZone: 'Asia/Tehran', calendar: 'persian', numberingSystem: 'arab' }), undefined)) as { resolved: Intl.ResolvedDateTimeFormatOptions }).resolved;
    expect(resolved).toMatchObject({ locale: 'en-US', calendar: 'gregory', numberingSystem: 'latn', timeZone: 'Asia/Tehran' });
    expect(JSON.parse(dateTimeFormatAnswer('[1]', undefined))).toHaveProperty('error');
    expect(JSON.parse(dateTimeFormatAnswer(JSON.stringify({ year: { nested: true } }), 0))).toHaveProperty('error');
    expect(JSON.parse(dateTimeFormatAnswer(JSON.stringify({ timeZone: 'UTC' }), Number.POSITIVE_INFINITY))).toEqual({ error: 'Invalid time value' });
  });
});
