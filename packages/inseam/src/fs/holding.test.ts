import { describe, expect, it } from 'vitest';
import { describeHolding, rootNameOf } from './holding.js';

describe('a host described by what it holds', () => {
  it('names a folder root by its last segment only, else a bucket or a server', () => {
    expect(rootNameOf({ root: '/srv/private/shared/notes' })).toBe('notes');
    expect(rootNameOf({ root: 'C:\\Users\\ann\\Documents\\' })).toBe('Documents');
    expect(rootNameOf({ root: '${appRoot}' })).toBeUndefined();
    expect(rootNameOf({ provider: 's3', bucket: 'photos' })).toBe('photos');
    expect(rootNameOf({ host: 'imap.example.com', port: 993 })).toBe('imap.example.com');
    expect(rootNameOf({ provider: 'pad' })).toBeUndefined();
  });

  it('says the kind, the root name and the synced entries', () => {
    expect(describeHolding({ kind: 'fs', label: 'Folder' }, 'notes', 1204)).toBe('Folder (fs) host named "notes", 1,204 entries synced.');
    expect(describeHolding({ kind: 'bucket', label: 'bucket' }, undefined, 1)).toBe('bucket host, 1 entry synced.');
    expect(describeHolding({ kind: 'x', label: undefined }, 'y', 0)).toBe('x host named "y", nothing synced yet.');
  });
});
