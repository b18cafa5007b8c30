/**
 * The sandbox process. The platform forks it with an empty environment and an IPC channel; it
 * holds no credential and reaches nothing but the platform. Each loaded connector module gets a
 * ModuleInstance (its own QuickJS WebAssembly module); messages arrive and leave in batches.
 *
 * Started only by SandboxHost; never imported by the platform.
 */
import { setFlagsFromString } from 'node:v8';
import { ModuleInstance } from './runtime.js';
import type { LoadSpec, WireMessage } from './protocol.js';

// QuickJS is WebAssembly, and its interpreter calls many small functions. Later V8 versions inline
// them into their callers by default; Node 20's V8 11.3 does so only with this flag, which takes
// about 12% off the time a module's own code runs (bench:sandbox, cpu; docs/performance.md says
// why it is on). Read when a function is compiled, so it applies to every runtime this process
// builds; a V8 without the flag ignores it.
setFlagsFromString('--wasm-inlining');

const instances = new Map<number, ModuleInstance>();
let outbox: WireMessage[] = [];
let flushScheduled = false;

function send(message: WireMessage): void {
  outbox.push(message);
  if (flushScheduled) return;
  flushScheduled = true;
  setImmediate(flush);
}

function flush(): void {
  flushScheduled = false;
  const batch = outbox;
  outbox = [];
  if (batch.length > 0 && process.connected) process.send?.(batch);
}

function dispatch(message: WireMessage, touched: Set<ModuleInstance>): void {
  if (message.op === 'load') {
    instances.get(message.i)?.dispose();
    const spec = JSON.parse(message.j ?? 'null') as LoadSpec;
    instances.set(message.i, new ModuleInstance(message.i, spec, send));
    return;
  }
  const instance = instances.get(message.i);
  if (instance === undefined) return;
  if (message.op === 'dispose') {
    instance.dispose();
    instances.delete(message.i);
    touched.delete(instance);
    return;
  }
  instance.handle(message);
  touched.add(instance);
}

process.on('message', (batch: unknown) => {
  if (!Array.isArray(batch)) return;
  const touched = new Set<ModuleInstance>();
  for (const message of batch as WireMessage[]) dispatch(message, touched);
  for (const instance of touched) instance.pump();
});

// The platform went away: nothing left to serve.
process.on('disconnect', () => process.exit(0));

process.on('uncaughtException', (error) => {
  process.stderr.write(`inseam sandbox: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(70);
});
