/** Runs the CLI in-process on captured streams. */
import { PassThrough } from 'node:stream';
import { runCli, type CliIo } from '../../program.js';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly bytes: Buffer;
}

export interface Captured {
  readonly stream: PassThrough;
  bytes(): Buffer;
  text(): string;
}

export function capture(options: { readonly tty?: boolean } = {}): Captured {
  const stream = new PassThrough();
  if (options.tty === true) Object.assign(stream, { isTTY: true, columns: 120 });
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, bytes: () => Buffer.concat(chunks), text: () => Buffer.concat(chunks).toString('utf8') };
}

export interface CliOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly stdin?: CliIo['stdin'];
  readonly tty?: boolean;
}

/** `inseam --data <dataDir> …args`. */
export async function cli(dataDir: string, args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  const out = capture();
  const err = capture({ tty: options.tty === true });
  const stdin = options.stdin ?? new PassThrough();
  const code = await runCli(['--data', dataDir, ...args], { stdout: out.stream, stderr: err.stream, stdin, env: options.env ?? {} });
  process.exitCode = undefined;
  return { code, stdout: out.text(), stderr: err.text(), bytes: out.bytes() };
}
