/**
 * Small, real sample objects for the checks that write and read back: the compliance harness's
 * scratch tree and the conformance trial's write check (one sample per declared MIME type).
 * Each sample is a valid file of its type, named by a file extension hosts map to that type, and
 * comes with a different second body for "replace" checks. Text samples include non-ASCII text
 * and line breaks, so an encoding or newline change shows up as a byte difference.
 */

function base64(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text, 'base64'));
}

function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** A 1×1 PNG: a real binary object for the binary-read rule. */
export const PNG_1X1 = base64('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==');

/** A 2×1 RGB PNG, the replacement body for PNG_1X1. */
const PNG_2X1 = base64('iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAAD0lEQVR4nGPQqr+iVX8FAAkeAvtVNT57AAAAAElFTkSuQmCC');

function pdf(text: string): Uint8Array {
  const stream = `BT /F1 12 Tf 20 20 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 50] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return utf8(body);
}

function calendar(summary: string): Uint8Array {
  return utf8(
    ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//inseam//trial//EN', 'BEGIN:VEVENT', 'UID:inseam-trial-sample@inseam.invalid', 'DTSTAMP:20240501T120000Z', 'DTSTART:20240502T090000Z', 'DTEND:20240502T093000Z', `SUMMARY:${summary}`, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n'),
  );
}

function message(subject: string): Uint8Array {
  return utf8(
    ['From: Trial Sender <sender@inseam.invalid>', 'To: Trial Recipient <recipient@inseam.invalid>', `Subject: ${subject}`, 'Date: Wed, 01 May 2024 12:00:00 +0000', 'Message-ID: <inseam-trial-sample@inseam.invalid>', 'MIME-Version: 1.0', 'Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 8bit', '', 'A sample message from the inseam trial — grüße.', ''].join('\r\n'),
  );
}

function octets(seed: number): Uint8Array {
  return Uint8Array.from({ length: 64 }, (_value, index) => (index * 37 + seed) % 256);
}

export interface SampleBody {
  /** The MIME type the sample is. */
  readonly mime: string;
  /** A file extension hosts map to that type, without the dot. */
  readonly extension: string;
  readonly body: Uint8Array;
  /** A different valid body of the same type, for replace checks. */
  readonly replacement: Uint8Array;
}

const SAMPLES: readonly SampleBody[] = [
  { mime: 'text/plain', extension: 'txt', body: utf8('inseam trial sample: plain text, ünïcode ✓\nsecond line\n'), replacement: utf8('inseam trial sample, replaced ✓\n') },
  { mime: 'text/markdown', extension: 'md', body: utf8('# inseam trial\n\nA *sample* note — ✓\n'), replacement: utf8('# inseam trial\n\nReplaced.\n') },
  { mime: 'text/html', extension: 'html', body: utf8('<!doctype html>\n<title>inseam trial</title>\n<p>sample ✓</p>\n'), replacement: utf8('<!doctype html>\n<title>inseam trial</title>\n<p>replaced</p>\n') },
  { mime: 'text/csv', extension: 'csv', body: utf8('name,value\nsample,1\nümlaut,2\n'), replacement: utf8('name,value\nreplaced,3\n') },
  { mime: 'application/json', extension: 'json', body: utf8('{"sample":"inseam trial","ok":true,"text":"ünïcode ✓"}\n'), replacement: utf8('{"sample":"inseam trial","replaced":true}\n') },
  { mime: 'text/calendar', extension: 'ics', body: calendar('inseam trial sample'), replacement: calendar('inseam trial sample, replaced') },
  { mime: 'message/rfc822', extension: 'eml', body: message('inseam trial sample'), replacement: message('inseam trial sample, replaced') },
  { mime: 'image/png', extension: 'png', body: PNG_1X1, replacement: PNG_2X1 },
  { mime: 'application/pdf', extension: 'pdf', body: pdf('inseam trial sample'), replacement: pdf('replaced') },
  { mime: 'application/octet-stream', extension: 'bin', body: octets(0), replacement: octets(101) },
];

/** Every built-in sample, one per MIME type. */
export const SAMPLE_BODIES: readonly SampleBody[] = Object.freeze(SAMPLES.map((sample) => Object.freeze(sample)));

/** The sample for an exact MIME type (parameters such as `; charset=` ignored), or undefined. */
export function sampleBodyFor(mime: string): SampleBody | undefined {
  const essence = mime.split(';')[0]!.trim().toLowerCase();
  return SAMPLE_BODIES.find((sample) => sample.mime === essence);
}
