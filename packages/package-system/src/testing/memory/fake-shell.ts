/**
 * A tiny fake shell for the memory connector — a test double, not a shell. It knows three
 * commands, `echo ARGS…`, `sleep SECONDS` and `exit [CODE]`, joined by `;` or `&&`, with single-
 * or double-quoted words. Pipes, redirections, variables and anything else are refused (exit 2)
 * rather than misread. Nothing touches the host: no process is spawned, no file is opened.
 */

export interface FakeShellIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Aborting ends the run at once; `runFakeShell` then resolves with `null`. */
  readonly signal: AbortSignal;
}

interface Step {
  readonly argv: readonly string[];
  /** How this step joins the previous one. */
  readonly joiner: ';' | '&&';
}

class ShellSyntaxError extends Error {}

const UNSUPPORTED = new Set(['|', '>', '<', '&', '$', '`', '(', ')', '\\']);

function parse(line: string): Step[] {
  const steps: Step[] = [];
  let argv: string[] = [];
  let word: string | undefined;
  let joiner = ';' as Step['joiner'];
  const endWord = (): void => {
    if (word !== undefined) argv.push(word);
    word = undefined;
  };
  const endStep = (next: Step['joiner']): void => {
    endWord();
    if (argv.length === 0) throw new ShellSyntaxError(`syntax error near "${next}"`);
    steps.push({ argv, joiner });
    argv = [];
    joiner = next;
  };
  for (let index = 0; index < line.length; index += 1) {
    const char = line.charAt(index);
    if (char === '"' || char === "'") {
      const close = line.indexOf(char, index + 1);
      if (close < 0) throw new ShellSyntaxError(`unterminated ${char} quote`);
      word = (word ?? '') + line.slice(index + 1, close);
      index = close;
    } else if (char === ';') {
      endStep(';');
    } else if (char === '&' && line.charAt(index + 1) === '&') {
      endStep('&&');
      index += 1;
    } else if (UNSUPPORTED.has(char)) {
      throw new ShellSyntaxError(`"${char}" is not supported (only echo, sleep and exit, joined by ; or &&)`);
    } else if (/\s/.test(char)) {
      endWord();
    } else {
      word = (word ?? '') + char;
    }
  }
  endWord();
  if (argv.length > 0) steps.push({ argv, joiner });
  else if (joiner === '&&') throw new ShellSyntaxError('syntax error: "&&" at the end');
  return steps;
}

/** Resolves true when the time passed, false when the signal aborted first. */
function sleep(milliseconds: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, milliseconds);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Runs one step; returns its exit status, `null` when aborted, or `{ exit }` for `exit`. */
async function runStep(argv: readonly string[], io: FakeShellIo): Promise<number | null | { exit: number }> {
  const [name = '', ...args] = argv;
  switch (name) {
    case 'echo':
      io.stdout(`${args.join(' ')}\n`);
      return 0;
    case 'sleep': {
      const seconds = Number(args[0]);
      if (args.length !== 1 || !Number.isFinite(seconds) || seconds < 0) {
        io.stderr('sleep: expected one non-negative number of seconds\n');
        return 1;
      }
      return (await sleep(seconds * 1000, io.signal)) ? 0 : null;
    }
    case 'exit': {
      const code = args.length === 0 ? 0 : Number(args[0]);
      if (!Number.isInteger(code) || code < 0 || code > 255) {
        io.stderr('exit: expected an integer from 0 to 255\n');
        return { exit: 2 };
      }
      return { exit: code };
    }
    default:
      io.stderr(`${name}: command not found (the memory connector's fake shell knows echo, sleep and exit)\n`);
      return 127;
  }
}

/**
 * Runs `commandLine`; resolves with the exit status of the last step run, or `null` when the
 * signal aborted the run. A syntax error prints to stderr and exits 2 without running anything.
 */
export async function runFakeShell(commandLine: string, io: FakeShellIo): Promise<number | null> {
  let steps: Step[];
  try {
    steps = parse(commandLine);
  } catch (error) {
    if (!(error instanceof ShellSyntaxError)) throw error;
    io.stderr(`fake shell: ${error.message}\n`);
    return 2;
  }
  let status = 0;
  for (const step of steps) {
    if (io.signal.aborted) return null;
    if (step.joiner === '&&' && status !== 0) continue;
    const outcome = await runStep(step.argv, io);
    if (outcome === null) return null;
    if (typeof outcome === 'object') return outcome.exit;
    status = outcome;
  }
  return io.signal.aborted ? null : status;
}
