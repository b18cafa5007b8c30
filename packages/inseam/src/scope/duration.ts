/**
 * ISO 8601 durations for `window.last`: `P[nY][nM][nW][nD][T[nH][nM][nS]]` with whole numbers,
 * at least one part, not zero (`P30D`, `PT12H`, `P1Y6M`, `P2W`). Years and months are calendar
 * steps in UTC, clamped to the end of a shorter month (31 March − P1M = 28/29 February); weeks,
 * days, hours, minutes and seconds are fixed lengths (a UTC day has no DST).
 */
import { daysInMonth } from './values.js';

export interface Duration {
  readonly years: number;
  readonly months: number;
  readonly weeks: number;
  readonly days: number;
  readonly hours: number;
  readonly minutes: number;
  readonly seconds: number;
}

const DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;
/** About 10,000 years in seconds: anything longer reaches before year 0 and is a typo. */
const MAX_SECONDS = 10_000 * 366 * 86_400;

/** Parses a duration, or returns why it is not one. */
export function parseDuration(text: string): Duration | { readonly problem: string } {
  const match = DURATION.exec(text);
  if (match === null || text === 'P' || text.endsWith('T')) {
    return { problem: `${JSON.stringify(text)} is not an ISO 8601 duration such as "P30D", "PT12H" or "P1Y6M" (whole numbers only)` };
  }
  const [years, months, weeks, days, hours, minutes, seconds] = match.slice(1).map((part) => (part === undefined ? 0 : Number(part))) as [number, number, number, number, number, number, number];
  const approxSeconds = years * 366 * 86_400 + months * 31 * 86_400 + weeks * 7 * 86_400 + days * 86_400 + hours * 3_600 + minutes * 60 + seconds;
  if (approxSeconds === 0) return { problem: `${JSON.stringify(text)} is a zero duration, so the window would be empty` };
  if (!(approxSeconds <= MAX_SECONDS)) return { problem: `${JSON.stringify(text)} is longer than 10,000 years` };
  return { years, months, weeks, days, hours, minutes, seconds };
}

/** `now` minus `duration`, as epoch milliseconds. */
export function subtractDuration(now: Date, duration: Duration): number {
  const date = new Date(now.getTime());
  const totalMonths = duration.years * 12 + duration.months;
  if (totalMonths > 0) {
    const day = date.getUTCDate();
    const target = date.getUTCFullYear() * 12 + date.getUTCMonth() - totalMonths;
    const year = Math.floor(target / 12);
    const month = target - year * 12;
    date.setUTCFullYear(year, month, Math.min(day, daysInMonth(year, month)));
  }
  const fixedSeconds = (duration.weeks * 7 + duration.days) * 86_400 + duration.hours * 3_600 + duration.minutes * 60 + duration.seconds;
  return date.getTime() - fixedSeconds * 1000;
}
