/**
 * Dates in time zones for sandboxed connectors. QuickJS has no `Intl`, so a connector reading a
 * calendar (`DTSTART;TZID=Europe/Berlin:…`) could not turn a wall-clock time into an instant. The
 * prelude's `Intl.DateTimeFormat` asks the sandbox process, which answers with Node's own ICU and
 * its IANA time-zone data: correct across DST changes, the same answers as V8.
 *
 * What crosses is one JSON text of options and a number, both checked here:
 * - only the formatting options below, each a string, boolean or small number, at most 2 KiB in
 *   all; anything else is ignored, as Intl ignores unknown options;
 * - the locale is always `en-US` (so output is the same on every deployment), the calendar
 *   Gregorian and the digits Latin; the default time zone is `UTC`, never the host's;
 * - an unknown time zone or a bad option value is a RangeError inside the sandbox, with Intl's
 *   own message.
 */

/** The options a connector may pass to `Intl.DateTimeFormat`. */
export const DATE_TIME_FORMAT_OPTIONS = [
  'timeZone',
  'hour12',
  'hourCycle',
  'weekday',
  'era',
  'year',
  'month',
  'day',
  'dayPeriod',
  'hour',
  'minute',
  'second',
  'fractionalSecondDigits',
  'timeZoneName',
  'dateStyle',
  'timeStyle',
] as const;

/** The one locale the sandbox formats in. */
export const SANDBOX_LOCALE = 'en-US';

const MAX_OPTIONS_TEXT = 2048;
const FORMATTERS_KEPT = 64;

/** Formatters by their options' JSON, least recently used first: a connector formats many dates with one. */
const formatters = new Map<string, Intl.DateTimeFormat>();

type Answer = { readonly error: string } | { readonly resolved: Intl.ResolvedDateTimeFormatOptions } | { readonly parts: Intl.DateTimeFormatPart[] };

/**
 * The sandbox's `Intl.DateTimeFormat` call, answered as JSON: with `epoch` undefined the resolved
 * options (the constructor's check), else the parts of that instant. A bad input is `{ error }`.
 */
export function dateTimeFormatAnswer(optionsText: string, epoch: number | undefined): string {
  return JSON.stringify(answer(optionsText, epoch));
}

function answer(optionsText: string, epoch: number | undefined): Answer {
  if (optionsText.length > MAX_OPTIONS_TEXT) return { error: `Intl.DateTimeFormat options are limited to ${MAX_OPTIONS_TEXT} characters of JSON.` };
  let format: Intl.DateTimeFormat;
  try {
    format = formatterFor(optionsText);
  } catch (error) {
    return { error: error instanceof Error ? error.message : 'Invalid Intl.DateTimeFormat options.' };
  }
  if (epoch === undefined) return { resolved: format.resolvedOptions() };
  if (!Number.isFinite(epoch) || Math.abs(epoch) > 8.64e15) return { error: 'Invalid time value' };
  return { parts: format.formatToParts(epoch) };
}

function formatterFor(optionsText: string): Intl.DateTimeFormat {
  const kept = formatters.get(optionsText);
  if (kept !== undefined) {
    formatters.delete(optionsText);
    formatters.set(optionsText, kept);
    return kept;
  }
  const format = new Intl.DateTimeFormat(SANDBOX_LOCALE, { ...checkedOptions(optionsText), calendar: 'gregory', numberingSystem: 'latn' });
  if (formatters.size >= FORMATTERS_KEPT) formatters.delete(formatters.keys().next().value!);
  formatters.set(optionsText, format);
  return format;
}

function checkedOptions(optionsText: string): Intl.DateTimeFormatOptions {
  let given: unknown;
  try {
    given = JSON.parse(optionsText);
  } catch {
    throw new RangeError('Intl.DateTimeFormat options must be an object.');
  }
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw new RangeError('Intl.DateTimeFormat options must be an object.');
  const options: Record<string, string | number | boolean> = { timeZone: 'UTC' };
  for (const key of DATE_TIME_FORMAT_OPTIONS) {
    const value: unknown = (given as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' && typeof value !== 'boolean' && typeof value !== 'number') throw new RangeError(`Intl.DateTimeFormat option ${key} must be a string, a number or a boolean.`);
    options[key] = value;
  }
  return options;
}

/** `Intl.supportedValuesOf('timeZone')`, as JSON; other keys are not offered. */
export function supportedTimeZones(): string {
  return JSON.stringify(Intl.supportedValuesOf('timeZone'));
}
