/**
 * `inseam search <query…> [--mode keyword|semantic|hybrid] [--network n] [--host h…] [--where dim=value…] [--limit n] [--json]`:
 * search over what was crawled, by words, by meaning, or both (hybrid, the default: reciprocal-rank
 * fusion of the two). Each hit is its global address, a snippet or the passage that matched, and
 * its OS path when its kind has one. Without `--network`, every network is searched, but `--host`
 * names hosts of one network: INSEAM_NETWORK's, or the only one there is. Like grep,
 * it exits 1 when nothing matched.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import type { SearchMode, SearchResult } from '../../search/index.js';
import { EXIT, type CliIo } from '../io.js';
import { collect, defaultNetwork, isTerminal, printJson, withPlatform } from './support.js';

// Spelled here, not imported: the command's module loads nothing of the search's at startup.
const SEARCH_MODES: readonly SearchMode[] = ['keyword', 'semantic', 'hybrid'];

interface SearchCommandOptions {
  readonly network?: string;
  readonly host: readonly string[];
  readonly where: readonly string[];
  readonly limit: string;
  readonly cursor?: string;
  readonly json?: boolean;
  readonly mode: string;
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
    .argument('<query...>', 'keyword: words, "quoted phrases" and prefix* terms (two letters or more), all must match; semantic and hybrid: any question')
    .option('--mode <mode>', 'keyword, semantic (by meaning) or hybrid (both, fused)', 'hybrid')
    .option('--network <slug>', 'search one network (default: every network)')
    .option('--host <slug>', 'only this host of the network (--network, else INSEAM_NETWORK or the only one); repeatable', collect, [])
    .option('--where <filter>', 'a dimension filter such as mime=text/markdown, size>1000, mtime>=2024-05-01; repeatable', collect, [])
    .option('--limit <n>', 'hits to print, 1–100', '20')
    .option('--cursor <cursor>', 'continue after a previous page (printed as "next:")')
    .option('--json', 'print { hits, next } as JSON')
    .action(async (words: readonly string[], options: SearchCommandOptions, command: Command) => {
      if (!(SEARCH_MODES as readonly string[]).includes(options.mode)) {
        throw new InvalidArgumentError(`--mode must be keyword, semantic or hybrid, not ${JSON.stringify(options.mode)}.`, { details: { argument: 'mode' } });
      }
      if (!/^\d{1,3}$/.test(options.limit)) throw new InvalidArgumentError(`--limit must be a whole number from 1 to 100, not ${JSON.stringify(options.limit)}.`, { details: { argument: 'limit' } });
      await withPlatform(command, io, async (platform) => {
        // Hosts are named within one network: --network, else INSEAM_NETWORK or the only one.
        const network = options.host.length > 0 ? await defaultNetwork(platform, options.network, io) : options.network;
        const page = await platform.search.search(words.join(' '), {
          ...(network === undefined ? {} : { network }),
          ...(options.host.length === 0 ? {} : { hosts: options.host }),
          ...(options.where.length === 0 ? {} : { whereText: options.where }),
          limit: Number(options.limit),
          ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
          mode: options.mode as SearchMode,
        });
        if (options.json === true) printJson(io, page);
        else {
          const terminal = isTerminal(io.stdout);
          for (const hit of page.hits) {
            const text = hit.highlights.length === 0 && hit.passage !== null ? hit.passage.text.replace(/\s+/g, ' ').trim().slice(0, 300) : marked(hit, terminal);
            io.stdout.write(`${hit.address}\n    ${text}\n`);
          }
          for (const coverage of page.index ?? []) {
            if (coverage.error !== undefined) io.stderr.write(`semantic search of ${coverage.network} unavailable: ${coverage.error.code}: ${coverage.error.message}\n`);
            else if (coverage.pending > 0 || coverage.failed > 0) io.stderr.write(`index of ${coverage.network}: ${coverage.pending} pending, ${coverage.failed} failed (not searched by meaning yet)\n`);
          }
          if (page.next !== undefined) io.stderr.write(`next: ${page.next}\n`);
        }
        process.exitCode = page.hits.length === 0 ? EXIT.no : EXIT.ok;
      });
    });
}
