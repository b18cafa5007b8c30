import { describe, expect, it } from 'vitest';
import { runFakeShell } from './fake-shell.js';

async function run(line: string, signal = new AbortController().signal): Promise<{ code: number | null; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runFakeShell(line, { stdout: (text) => (out += text), stderr: (text) => (err += text), signal });
  return { code, out, err };
}

describe('the fake shell (a test double: echo, sleep and exit only)', () => {
  it('joins steps with ; (always) and && (only after success)', async () => {
    expect(await run("echo a; sleep soon && echo skipped; echo 'c d'")).toEqual({
      code: 0,
      out: 'a\nc d\n',
      err: 'sleep: expected one non-negative number of seconds\n',
    });
    expect(await run('exit 5; echo unreachable')).toEqual({ code: 5, out: '', err: '' });
  });

  it('answers an unknown command with 127 on stderr, like sh', async () => {
    expect(await run('rm -rf /')).toEqual({ code: 127, out: '', err: expect.stringContaining('rm: command not found') });
  });

  it('refuses pipes, redirections and variables instead of misreading them', async () => {
    for (const line of ['echo a | cat', 'echo a > f', 'echo $HOME', 'echo `id`', 'echo "open']) {
      const result = await run(line);
      expect([line, result.code, result.out]).toEqual([line, 2, '']);
    }
  });

  it('rejects a bad sleep argument and ends a sleep when aborted', async () => {
    expect((await run('sleep soon')).code).toBe(1);
    const controller = new AbortController();
    const sleeping = run('sleep 30; echo never', controller.signal);
    controller.abort();
    expect(await sleeping).toEqual({ code: null, out: '', err: '' });
  });
});
