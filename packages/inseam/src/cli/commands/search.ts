/**
 * `inseam search <query…> [--network n] [--host h…] [--where dim=value…] [--limit n] [--json]`:
 * full-text search over what was crawled. Each hit is its global address and a snippet. Without
 * `--network`, every network is searched. Like grep, it exits 1 when nothing matched.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import type { SearchResult } from '../../search/index.js';
import { EXIT, type CliIo } from '../io.js';
import { collect, isTerminal, printJson, withPlatform } from './support.js';

interface SearchCommandOptions {
  readonly network?: string;
  readonly host: readonly string[];
  readonly where: readonly string[];
  readonly limit: string;
  readonly cursor?: string;
  readonly json?: boolean;
}

/** The snippet with its matched terms marked: bold on a terminal, [brackets] elsewhere. */
function marked(hit: SearchResult, terminal: boolean): string {
  const [open, close] = terminal ? ['\x1b[1m', '\x1b[22m'] : ['[', ']'];
  let text = '';
  let at = 0;
  for (const [start, end] of hit.highlights) {
    text += hit.snippet.slice(at, start) + open + hit.snippet.slice(start, end) + close;
    at = end;
  }
  return (text + hit.snippet.slice(at)).replace(/\s+/g, ' ').trim();
}

export function registerSearchCommand(program: Command, io: CliIo): void {
  program
    .command('search')
    .description('Search the content of crawled hosts.')
    .argument('<query...>', 'words, "quoted phrases" and prefix* terms; all must match')
    .option('--network <slug>', 'search one network (default: every network)')
    .option('--host <slug>', 'only this host of the network; repeatable', collect, [])
    .option('--where <filter>', 'a dimension filter such as mime=text/markdown, size>1000, mtime>=2024-05-01; repeatable', collect, [])
    .option('--limit <n>', 'hits to print, 1–100', '20')
    .option('--cursor <cursor>', 'continue after a previous page (printed as "next:")')
    .option('--json', 'print { hits, next } as JSON')
    .action(async (words: readonly string[], options: SearchCommandOptions, command: Command) => {
      if (!/^\d{1,3}$/.test(options.limit)) throw new InvalidArgumentError(`--limit must be a whole number from 1 to 100, not ${JSON.stringify(options.limit)}.`, { details: { argument: 'limit' } });
      await withPlatform(command, io, async (platform) => {
        const page = await platform.search.search(words.join(' '), {
          ...(options.network === undefined ? {} : { network: options.network }),
          ...(options.host.length === 0 ? {} : { hosts: options.host }),
          ...(options.where.length === 0 ? {} : { whereText: options.where }),
          limit: Number(options.limit),
          ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
        });
        if (options.json === true) printJson(io, page);
        else {
          const terminal = isTerminal(io.stdout);
          for (const hit of page.hits) io.stdout.write(`${hit.address}\n    ${marked(hit, terminal)}\n`);
          if (page.next !== undefined) io.stderr.write(`next: ${page.next}\n`);
        }
        process.exitCode = page.hits.length === 0 ? EXIT.no : EXIT.ok;
      });
    });
}
