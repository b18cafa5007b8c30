// fs-read: reading a 1 GiB file through the fs connector — the host Connector's read() stream
// (with a default reader, and with a BYOB reader), and the ConnectorPort read() in the ranges a
// large binary file must be paged in — against `cat` and raw Node read loops.
//
//   node bench/fs-read.mjs [--rounds N] [--bytes N]
//
// Run as `node bench/fs-read.mjs --case <id> <file>` it is one case's child process.
import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchRoot, bigFile } from './lib/fixtures.mjs';
import { busyWarning, childCase, commandCase, ensureBuilt, machineFacts, nodeCase, progress, roundsFromArgv, runCases, runScript, saveResults, table, wholeNumberOption } from './lib/measure.mjs';

const script = fileURLToPath(import.meta.url);
const MiB = 1 << 20;

async function folderConnector(file) {
  const { createFsConnector } = await import('@inseam/connector-fs');
  const root = dirname(file);
  return createFsConnector({ packageId: 'bench', packageRoot: root, source: 'bench', config: { root }, projectRoot: benchRoot, scope: 'project' });
}

/** Reads a whole stream with a default reader; every chunk is a fresh copy the reader owns. */
async function drainDefault(stream) {
  const reader = stream.getReader();
  let bytes = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) bytes += read.value.byteLength;
  return bytes;
}

/** Reads a whole byte stream into one reused 1 MiB buffer (the stream reads straight into it). */
async function drainByob(stream, size = MiB) {
  const reader = stream.getReader({ mode: 'byob' });
  let buffer = new ArrayBuffer(size);
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read(new Uint8Array(buffer));
    if (done) return bytes;
    bytes += value.byteLength;
    buffer = value.buffer;
  }
}

const CASES = {
  async 'host-default'(file) {
    const host = (await folderConnector(file)).host();
    return childCase(async () => drainDefault(await host.read(basename(file))));
  },
  async 'host-byob'(file) {
    const host = (await folderConnector(file)).host();
    return childCase(async () => drainByob(await host.read(basename(file))));
  },
  /** A binary file over its inline cap (1 MiB by default) is read in ranges of at most the cap. */
  async 'port-ranges'(file) {
    const connector = await folderConnector(file);
    const uri = `bench://${basename(file)}`;
    return childCase(async () => {
      let bytes = 0;
      for (let offset = 0; ; offset += MiB) {
        const result = await connector.read(uri, { range: { offset, length: MiB } });
        if (result.bytes === undefined) throw new Error(`No bytes at ${offset}: ${result.text}`);
        const chunk = Buffer.from(result.bytes, 'base64');
        bytes += chunk.length;
        if (chunk.length < MiB) return bytes;
      }
    });
  },
  async 'raw-async'(file) {
    return childCase(async () => {
      const handle = await open(file, 'r');
      const buffer = Buffer.allocUnsafe(MiB);
      let bytes = 0;
      for (let read; (read = (await handle.read(buffer, 0, MiB, bytes)).bytesRead) > 0; ) bytes += read;
      await handle.close();
      return bytes;
    });
  },
  /** The floor for Node: cat's own loop (128 KiB reads), synchronous, so it blocks the event loop. */
  async 'raw-sync'(file) {
    return childCase(async () => {
      const fd = openSync(file, 'r');
      const buffer = Buffer.allocUnsafe(128 * 1024);
      let bytes = 0;
      for (let read; (read = readSync(fd, buffer, 0, buffer.length, bytes)) > 0; ) bytes += read;
      closeSync(fd);
      return bytes;
    });
  },
  async start() {
    await import('@inseam/connector-fs');
    return childCase(async () => 0);
  },
};

function casesFor(file, bytes) {
  const whole = { expect: bytes };
  return [
    nodeCase('inseam fs host read(), default reader', script, 'host-default', [file], whole),
    nodeCase('inseam fs host read(), BYOB reader 1 MiB', script, 'host-byob', [file], whole),
    nodeCase('inseam fs port read(), 1 MiB ranges (base64)', script, 'port-ranges', [file], whole),
    nodeCase('Node FileHandle.read 1 MiB buffer loop', script, 'raw-async', [file], { ...whole, short: 'Node loop' }),
    nodeCase('Node readSync 128 KiB loop (blocking)', script, 'raw-sync', [file], whole),
    // cat's output goes to /dev/null (the case's stdout), as in `cat file > /dev/null`.
    commandCase('cat file > /dev/null', 'cat', [file], { count: bytes, short: 'cat' }),
    nodeCase('Node start + import only', script, 'start', []),
  ];
}

async function main(argv) {
  const rounds = roundsFromArgv(argv, 7);
  const bytes = wholeNumberOption(argv, '--bytes', 1 << 30);
  ensureBuilt(['connectors/fs']);
  const machine = machineFacts();
  const file = await bigFile(bytes);
  console.log(`fs-read — ${machine.date}, ${machine.cpu}, ${machine.memoryGiB} GiB, ${machine.node}, load ${machine.loadAverageAtStart}`);
  const busy = busyWarning();
  if (busy !== '') console.log(busy);
  const rows = await runCases(casesFor(file, bytes), { rounds, onProgress: progress('fs-read') });
  console.log(`\n${(bytes / MiB).toFixed(0)} MiB file, page cache warm (${file})\n`);
  console.log(table(rows, { baselines: ['cat file > /dev/null', 'Node FileHandle.read 1 MiB buffer loop'], inProcessBaseline: 'Node FileHandle.read 1 MiB buffer loop', countLabel: 'bytes' }));
  console.log(`\nraw results: ${await saveResults('fs-read', { benchmark: 'fs-read', machine, rounds, file, rows })}`);
}

await runScript(CASES, main);
