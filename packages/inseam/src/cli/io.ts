/**
 * What every command is given and answers with: the process's streams and environment, and the
 * exit codes program.ts documents. A leaf, so commands need not import the program that loads them.
 */
export const EXIT = { ok: 0, no: 1, usage: 2, unavailable: 3, internal: 4 } as const;

export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
}
