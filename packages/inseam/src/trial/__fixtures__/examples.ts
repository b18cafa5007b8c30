/** The example connectors' sources and the loopback hosts their trials run against. */
import { readFileSync } from 'node:fs';
import type { NotesSeed } from './servers/notes-api.js';
import type { DavSeed } from './servers/webdav.js';

/** The text of examples/connectors/<name>/connector.js. */
export function exampleSource(name: 'notes-api' | 'webdav'): string {
  return readFileSync(exampleFile(name, 'connector.js'), 'utf8');
}

/** A file of an example connector's folder. */
export function exampleFile(name: 'notes-api' | 'webdav', file: string): URL {
  return new URL(`../../../../../examples/connectors/${name}/${file}`, import.meta.url);
}

/** Six files (three pages of two), names that need percent-encoding, distinct update times. */
export const NOTES_SEED: readonly NotesSeed[] = [
  { path: 'journal/2024-05-01.md', text: '# May the first\n\nWrote the trial.\n', mime: 'text/markdown', updatedAt: '2024-05-01T08:00:00Z' },
  { path: 'journal/2024-05-02.md', text: '# May the second\n', mime: 'text/markdown', updatedAt: '2024-05-02T08:00:00Z', starred: true },
  { path: 'notes/meeting notes.txt', text: 'Agenda: ship it ✓ — über alles\n', updatedAt: '2024-04-20T10:30:00Z' },
  { path: 'notes/Ünïcode & more.txt', text: 'names with spaces, umlauts and & need encoding\n', updatedAt: '2024-03-01T00:00:00Z' },
  { path: 'data/settings.json', text: '{"theme":"dark"}\n', mime: 'application/json', updatedAt: '2024-02-01T00:00:00Z' },
  { path: 'trash/old.txt', text: 'bye\n', updatedAt: '2023-01-01T00:00:00Z' },
];

export const DAV_SEED: readonly DavSeed[] = [
  { path: 'Documents/report 2024.txt', text: 'Quarterly report — all green ✓\n', modified: '2024-05-01T08:00:00Z' },
  { path: 'Documents/notes/todo.md', text: '- [ ] write the trial\n- [x] write the server\n', modified: '2024-04-01T08:00:00Z' },
  { path: 'Photos/Ünïcode & more.txt', text: 'names need encoding\n', modified: '2024-03-01T08:00:00Z' },
  { path: 'readme.txt', text: 'top level file\n', modified: '2024-02-01T08:00:00Z' },
  { path: 'scratch/.keep', text: '', modified: '2024-01-01T08:00:00Z' },
];
