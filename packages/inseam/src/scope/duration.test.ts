import { describe, expect, it } from 'vitest';
import { parseDuration, subtractDuration, type Duration } from './duration.js';

function back(text: string, from: string): string {
  const duration = parseDuration(text);
  if ('problem' in duration) throw new Error(duration.problem);
  return new Date(subtractDuration(new Date(from), duration)).toISOString();
}

describe('ISO 8601 durations', () => {
  it('parses every part', () => {
    expect(parseDuration('P1Y2M3W4DT5H6M7S')).toEqual({ years: 1, months: 2, weeks: 3, days: 4, hours: 5, minutes: 6, seconds: 7 } satisfies Duration);
  });

  it.each([
    ['P30D', '2024-05-31T12:00:00.000Z', '2024-05-01T12:00:00.000Z'],
    ['PT12H', '2024-05-01T06:00:00.000Z', '2024-04-30T18:00:00.000Z'],
    ['P2W', '2024-05-15T00:00:00.000Z', '2024-05-01T00:00:00.000Z'],
    ['P1M', '2024-03-31T10:00:00.000Z', '2024-02-29T10:00:00.000Z'],
    ['P1M', '2023-03-31T10:00:00.000Z', '2023-02-28T10:00:00.000Z'],
    ['P1Y', '2024-02-29T00:00:00.000Z', '2023-02-28T00:00:00.000Z'],
    ['P13M', '2024-01-15T00:00:00.000Z', '2022-12-15T00:00:00.000Z'],
    ['P1MT1H', '2024-03-01T00:30:00.000Z', '2024-01-31T23:30:00.000Z'],
    ['PT90M', '2024-01-01T01:00:00.000Z', '2023-12-31T23:30:00.000Z'],
  ])('%s before %s is %s', (text, from, expected) => {
    expect(back(text, from)).toBe(expected);
  });

  it.each([
    ['30D', 'not an ISO 8601 duration'],
    ['P', 'not an ISO 8601 duration'],
    ['PT', 'not an ISO 8601 duration'],
    ['P1DT', 'not an ISO 8601 duration'],
    ['P1.5D', 'not an ISO 8601 duration'],
    ['P-1D', 'not an ISO 8601 duration'],
    ['p30d', 'not an ISO 8601 duration'],
    ['P1D2Y', 'not an ISO 8601 duration'],
    ['P0D', 'zero duration'],
    ['PT0S', 'zero duration'],
    ['P99999999999999999999Y', 'longer than 10,000 years'],
  ])('refuses %s', (text, message) => {
    const result = parseDuration(text);
    expect('problem' in result && result.problem).toContain(message);
  });
});
