#!/usr/bin/env node
// The package's server started by a relative command: it runs ../server/where.mjs with the greeting.
process.argv.push('--greeting', 'server/greeting.txt');
await import('../server/where.mjs');
