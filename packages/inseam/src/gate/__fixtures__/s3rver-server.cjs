// Runs s3rver on 127.0.0.1 (an ephemeral port) and prints {"port":N} once it listens.
// Started by s3.ts in its own `node --openssl-legacy-provider` process: s3rver's continuation
// tokens use DES, which OpenSSL 3 only offers through the legacy provider.
'use strict';
const S3rver = require('s3rver');

const [directory, bucketsJson] = process.argv.slice(2);
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: JSON.parse(bucketsJson).map((name) => ({ name })),
});
server.run().then(
  (address) => process.stdout.write(`${JSON.stringify({ port: address.port })}\n`),
  (error) => {
    process.stderr.write(`${error && error.message}\n`);
    process.exit(1);
  },
);
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
