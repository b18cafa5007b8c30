import { once } from 'node:events';
const t0 = performance.now();
const { openPlatform } = await import('./dist/platform/index.js');
const p = await openPlatform({ dataDir: '/tmp/h17/data' });
const t1 = performance.now();
const rec = await p.networks.hostRecord({ network: 'home', host: 'bench' });
const host = await p.kinds.openHost(rec);
console.error('host class', host.constructor.name);
const t2 = performance.now();
const mode = process.argv[2];
const stream = await host.read('big-1073741824.bin', {});
const reader = stream.getReader();
let n = 0, chunks = 0;
for (let r = await reader.read(); !r.done; r = await reader.read()) { n += r.value.byteLength; chunks++; if (mode === 'write') { if (!process.stdout.write(r.value)) await once(process.stdout, 'drain'); } }
const t3 = performance.now();
await p.close();
console.error({ open: t1 - t0, host: t2 - t1, read: t3 - t2, n, chunks });
