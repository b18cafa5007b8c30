import { validateDescription, type Description, type Dimension } from '@inseam/connector';

const auth = { acquire: { type: 'none' }, present: [], origins: ['https://api.example.com'] } as const;

/** A folder: free listing, ordered by mtime, with the fs kind's default excludes. */
export const folder: Description = validateDescription({
  kind: 'folder',
  capabilities: ['list', 'stat', 'read'],
  auth,
  dimensions: {
    path: { type: 'path', from: 'path', description: 'The file path.' },
    size: { type: 'bytes', from: 'size', description: 'Size in bytes.' },
    mtime: { type: 'datetime', from: 'mtime', ordering: true, description: 'Last modified.' },
    mime: { type: 'string', from: 'mime', description: 'MIME type.' },
  },
  listing: 'free',
  defaultScope: {
    rules: [{ exclude: { any: [{ dim: 'path', op: 'glob', value: '**/.git/**' }, { dim: 'path', op: 'glob', value: '**/node_modules/**' }] } }],
  },
});

/** A mailbox: metered, ordered by the received date in extra, with nested flags. */
export const mailbox: Description = validateDescription({
  kind: 'mailbox',
  capabilities: ['list', 'stat', 'read'],
  auth,
  dimensions: {
    received: { type: 'datetime', from: 'extra.received', ordering: true, description: 'When the message arrived.' },
    folder: { type: 'enum', from: 'extra.folder', values: ['inbox', 'sent', 'spam', 'trash'], description: 'The mailbox folder.' },
    sender: { type: 'string', from: 'extra.from', description: 'The sender address.' },
    starred: { type: 'boolean', from: 'extra.flags.starred', description: 'Whether the message is starred.' },
    attachments: { type: 'integer', from: 'extra.attachments', description: 'How many attachments.' },
    size: { type: 'bytes', from: 'size', description: 'Message size.' },
  },
  listing: 'metered',
  defaultScope: { rules: [{ exclude: { dim: 'folder', op: 'in', value: ['spam', 'trash'] } }] },
});

/** A metered bucket ordered by key. */
export const bucket: Description = validateDescription({
  kind: 'bucket',
  capabilities: ['list', 'stat', 'read'],
  auth,
  dimensions: {
    path: { type: 'path', from: 'path', ordering: true, description: 'The object key.' },
    size: { type: 'bytes', from: 'size', description: 'Object size.' },
    mtime: { type: 'datetime', from: 'mtime', description: 'Last written.' },
    storageClass: { type: 'string', from: 'extra.storageClass', description: 'Storage class.' },
  },
  listing: 'metered',
});

/** The same description with other dimensions (for orderings of other types). */
export function withDimensions(base: Description, dimensions: Record<string, Dimension>, extra: Partial<Description> = {}): Description {
  const { defaultScope: _dropped, ...rest } = base;
  return validateDescription({ ...rest, dimensions, ...extra });
}
