/**
 * `inseam credential set|rm|ls` in-process on a temp data directory: values come from stdin only
 * and are never printed; each scope resolves for the package as stored.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../../platform/__fixtures__/platforms.js';
import { cli } from './__fixtures__/cli.js';

const MACHINE = '@inseam/connector-machine';
let dataDir: string;

beforeAll(async () => {
  dataDir = await tempDir('cli-credential');
});
afterAll(async () => {
  await removeDir(dataDir);
});

function stdin(content: string): PassThrough {
  const stream = new PassThrough();
  stream.end(content);
  return stream;
}

const run = (args: string[], input?: string) => cli(dataDir, args, input === undefined ? {} : { stdin: stdin(input) });

describe('inseam credential', () => {
  it('stores from stdin at each scope, lists where values are without them, and removes', async () => {
    expect((await run(['network', 'init', 'home'])).code).toBe(0);
    const stored = await run(['credential', 'set', MACHINE, 'ssh-password', '--scope', 'deployment'], 'deploy-pass\n');
    expect(stored).toMatchObject({ code: 0, stderr: `Stored ssh-password of ${MACHINE} at scope deployment; it is not shown again.\n` });
    expect((await run(['credential', 'set', MACHINE, 'ssh-password', '--scope', 'user', '--network', 'home', '--user', 'ann'], 'ann-pass')).code).toBe(0);
    expect((await run(['credential', 'set', MACHINE, 'ssh-password', '--scope', 'agent', '--network', 'home', '--agent', 'helper', '--user', 'ann'], 'helper-pass')).code).toBe(0);

    const listed = await run(['credential', 'ls', '--network', 'home', '--user', 'ann']);
    expect(listed.stdout).toMatch(new RegExp(`${MACHINE.replace(/[/@.-]/g, '\\$&')} +ssh-password +password +deployment,user\\n`));
    for (const value of ['deploy-pass', 'ann-pass', 'helper-pass']) expect(listed.stdout + listed.stderr).not.toContain(value);
    const json = JSON.parse((await run(['credential', 'ls', '--json'])).stdout) as { credential: string; stored: Record<string, boolean> }[];
    expect(json.find((view) => view.credential === 'ssh-password')?.stored).toEqual({ deployment: true });

    expect(await run(['credential', 'set', MACHINE, 'ssh-password', '--scope', 'user'], 'x')).toMatchObject({ code: 2, stderr: expect.stringContaining('--network') });
    expect(await run(['credential', 'set', MACHINE, 'ssh-password', '--scope', 'agent', '--network', 'home'], 'x')).toMatchObject({ code: 2, stderr: expect.stringContaining('--agent') });
    expect(await run(['credential', 'set', MACHINE, 'nope', '--scope', 'deployment'], 'leaked-value')).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_found]') });
    expect(await run(['credential', 'rm', MACHINE, 'ssh-password', '--scope', 'user', '--network', 'home', '--user', 'ann'])).toMatchObject({ code: 0, stderr: `Removed ssh-password of ${MACHINE} from scope user.\n` });
    expect(await run(['credential', 'rm', MACHINE, 'ssh-password', '--scope', 'user', '--network', 'home', '--user', 'ann'])).toMatchObject({ code: 0, stderr: expect.stringContaining('Nothing was stored') });
  });
});
