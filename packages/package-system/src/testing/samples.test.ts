import { describe, expect, it } from 'vitest';
import { PNG_1X1, SAMPLE_BODIES, sampleBodyFor } from './samples.js';

describe('sample bodies', () => {
  it('has one sample per MIME type, each with a different replacement body', () => {
    const mimes = SAMPLE_BODIES.map((sample) => sample.mime);
    expect(new Set(mimes).size).toBe(mimes.length);
    for (const sample of SAMPLE_BODIES) {
      expect(sample.body.byteLength).toBeGreaterThan(0);
      expect(Buffer.from(sample.body).equals(Buffer.from(sample.replacement))).toBe(false);
      expect(sample.extension).toMatch(/^[a-z]+$/);
    }
  });

  it('samples are real files of their type', () => {
    const signature = (bytes: Uint8Array, length: number): string => Buffer.from(bytes.subarray(0, length)).toString('latin1');
    expect(signature(PNG_1X1, 8)).toBe('\x89PNG\r\n\x1a\n');
    expect(signature(sampleBodyFor('image/png')!.replacement, 8)).toBe('\x89PNG\r\n\x1a\n');
    const pdf = Buffer.from(sampleBodyFor('application/pdf')!.body).toString('latin1');
    expect(pdf.startsWith('%PDF-1.4\n')).toBe(true);
    const xref = Number(/startxref\n(\d+)\n/.exec(pdf)?.[1]);
    expect(pdf.slice(xref, xref + 4)).toBe('xref');
    expect(JSON.parse(new TextDecoder().decode(sampleBodyFor('application/json')!.body))).toMatchObject({ sample: 'inseam trial' });
    expect(new TextDecoder().decode(sampleBodyFor('text/calendar')!.body)).toMatch(/^BEGIN:VCALENDAR\r\n[\s\S]*END:VCALENDAR\r\n$/);
  });

  it('looks a type up by its essence, ignoring parameters and case', () => {
    expect(sampleBodyFor('Text/Plain; charset=utf-8')?.extension).toBe('txt');
    expect(sampleBodyFor('application/vnd.unknown')).toBeUndefined();
  });
});
