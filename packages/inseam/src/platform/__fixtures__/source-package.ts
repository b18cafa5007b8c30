/**
 * Writes a connector package folder with source kinds whose every file reads as `text`, for the
 * installed-packages tests: change `text` or the kinds and write again to make a new version.
 * A read waits while `globalThis.__heldReads[text]` is a pending promise, so a test can hold a
 * call on one version across a swap.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface SourcePackageSpec {
  readonly id: string;
  readonly version: string;
  readonly kinds: readonly string[];
  readonly text: string;
  /** Written into the manifest to show the loader ignores what a manifest says of its own trust. */
  readonly claimsTrust?: string;
}

const MODULE = (text: string, kinds: readonly string[]) => `
const TEXT = ${JSON.stringify(text)};
class Port {
  portVersion = 4;
  constructor(ctx, kind) { this.source = ctx.source; this.kind = kind; }
  capabilities() { return new Set(['list', 'read']); }
  async list() { return { entries: [{ uri: this.source + '://note.txt', name: 'note.txt', type: 'file', size: TEXT.length, mime: 'text/plain' }] }; }
  async read() {
    await globalThis.__heldReads?.[TEXT];
    return { text: TEXT, mime: 'text/plain', size: TEXT.length };
  }
}
${kinds.map((kind, index) => `export function create${index}(ctx) { return new Port(ctx, ${JSON.stringify(kind)}); }`).join('\n')}
`;

export async function writeSourcePackage(folder: string, spec: SourcePackageSpec): Promise<string> {
  await mkdir(join(folder, 'dist'), { recursive: true });
  await writeFile(join(folder, 'dist', 'port.js'), MODULE(spec.text, spec.kinds));
  const connectors = spec.kinds.map((kind, index) => ({
    id: kind,
    type: 'source',
    kind,
    transport: 'in-process',
    name: `Kind ${kind}`,
    configSchema: { type: 'object', additionalProperties: false, properties: {} },
    capabilities: ['list', 'read'],
    defaultPermissions: { default: { read: true, write: false, exec: false } },
    defaultScope: 'project',
    connectorFactory: `./dist/port.js#create${index}`,
  }));
  const neuralis = { id: spec.id, connectors, ...(spec.claimsTrust === undefined ? {} : { trust: spec.claimsTrust }) };
  await writeFile(join(folder, 'package.json'), JSON.stringify({ name: spec.id, version: spec.version, type: 'module', private: true, neuralis }, null, 2));
  return folder;
}
