#!/usr/bin/env node
/**
 * The `inseam` process. Starting must cost what a native tool's does: `--version` is answered
 * before anything else is loaded, and every other command loads the program (commander and the
 * command definitions) and then only the modules its own action imports.
 */
import module from 'node:module';
import { VERSION } from './version.js';

// Node 22.1+ keeps compiled modules on disk between runs; on Node 20 there is no such cache.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

// A reader that closes the pipe early (`| head`) makes writes fail with EPIPE: the command sees
// it at its next write and stops with exit 0; the stream's own error event must not crash it,
// on stdout or on stderr (`2>&1 | head`).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
}

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${VERSION}\n`);
} else {
  const { runCli } = await import('./program.js');
  process.exitCode = await runCli(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
  });
}
