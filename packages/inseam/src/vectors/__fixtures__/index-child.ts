/**
 * An embedding run in its own process, for the kill test: opens the platform on the data
 * directory in argv[2] and embeds network "home" 8 entries a page, printing `page <indexed>` after
 * each page is written and `done <indexed>` at the end.
 */
import { openPlatform } from '../../platform/index.js';
import { VectorIndexer } from '../indexer.js';

const platform = await openPlatform({ dataDir: process.argv[2]!, env: {} });
const indexer = new VectorIndexer({ store: platform.store, embedderOf: (host) => platform.kinds.embedder(host), batchEntries: 8 });
const result = await indexer.run('home', { onPage: ({ indexed }) => process.stdout.write(`page ${indexed}\n`) });
process.stdout.write(`done ${result.indexed}\n`);
await platform.close();
