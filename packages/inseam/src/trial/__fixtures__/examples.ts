/** The example connectors' sources and the loopback hosts their trials run against. */
import { readFileSync } from 'node:fs';
import { PNG_1X1 } from '@neuralis/package-system/testing';
import type { DocSeed } from './servers/docstore.js';
import type { NotesSeed } from './servers/notes-api.js';
import type { TicketSeed, TicketUser } from './servers/tickets.js';
import type { DavSeed } from './servers/webdav.js';

export type ExampleName = 'notes-api' | 'webdav' | 'tickets' | 'docstore';

/** The text of examples/connectors/<name>/connector.js. */
export function exampleSource(name: ExampleName): string {
  return readFileSync(exampleFile(name, 'connector.js'), 'utf8');
}

/** A file of an example connector's folder. */
export function exampleFile(name: ExampleName, file: string): URL {
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

/** The tracker's people: the owner (u-1) and Grace have emails; the build bot has none. */
export const TICKET_USERS: readonly TicketUser[] = [
  { id: 'u-1', name: 'Ada', email: 'Ada@Example.com' },
  { id: 'u-2', name: 'Grace', email: 'grace@example.com' },
  { id: 'u-3', name: 'build bot', email: null },
];

/**
 * Three tickets: one the owner reported (sent) with attachments whose names need every escape —
 * a space, "%", "#", "?", a "/" inside the name, and an NFC/NFD twin — one reported to the owner
 * (received), one from a bot with no email and no due date.
 */
export const TICKET_SEED: readonly TicketSeed[] = [
  {
    id: 12,
    title: 'Export fails on large folders',
    status: 'open',
    project: 'Platform',
    labels: ['bug', 'export'],
    reporter: 'u-1',
    assignee: 'u-2',
    watchers: ['u-3'],
    createdAt: '2024-05-01T09:00:00Z',
    updatedAt: '2024-05-03T10:15:00.250Z',
    due: '2024-06-01',
    content: '# Export fails on large folders\n\nExporting a folder of 10,000 files stops at 4,096.\n',
    attachments: [
      { id: 'a1', filename: 'screenshot 1.png', mime: 'image/png', bytes: PNG_1X1 },
      { id: 'a2', filename: '50% off #1?.txt', mime: 'text/plain', bytes: new TextEncoder().encode('percent, hash and question mark\n') },
      { id: 'a3', filename: 'logs/export.txt', mime: 'text/plain', bytes: new TextEncoder().encode('a slash inside a file name\n') },
      { id: 'a4', filename: 'caf\u00e9.txt', mime: 'text/plain', bytes: new TextEncoder().encode('NFC\n') },
      { id: 'a5', filename: 'cafe\u0301.txt', mime: 'text/plain', bytes: new TextEncoder().encode('NFD\n') },
    ],
  },
  {
    id: 13,
    title: 'Please review the quota change',
    status: 'pending',
    project: 'Billing',
    reporter: 'u-2',
    assignee: 'u-1',
    createdAt: '2024-05-02T08:00:00Z',
    updatedAt: '2024-05-02T08:30:00Z',
    due: null,
    content: 'Can you review the quota change before Friday?\n',
  },
  {
    id: 14,
    title: 'Nightly build failed',
    status: 'closed',
    project: 'Ünïcode & more',
    reporter: 'u-3',
    assignee: null,
    createdAt: '2024-04-30T02:00:00Z',
    updatedAt: '2024-04-30T02:05:00Z',
    due: null,
    content: 'Build 1842 failed: see the log.\n',
  },
];

/** JSON documents with nested keys in an order the store will not keep. */
export const DOC_SEED: readonly DocSeed[] = [
  { id: 'invoices/2024-0001', json: '{ "total": 120.5, "customer": { "name": "Ada", "id": 7 }, "lines": [ { "sku": "A-1", "qty": 2 } ] }', updatedAt: '2024-05-01T08:00:00Z' },
  { id: 'invoices/2024-0002', json: '{"customer":{"name":"Grüße GmbH","id":9},"total":80}', updatedAt: '2024-05-02T08:00:00Z' },
  { id: 'settings', json: '{"theme": "dark", "beta": true}', updatedAt: '2024-04-01T00:00:00Z' },
];
