// s3-list: listing 10,000 objects from s3rver on 127.0.0.1 through the bucket connector's host
// list() to the end (signed by SigningEgress, 1,000 a page) against rclone on the same bucket,
// and against bare unsigned HTTP requests for the same pages (what the server alone costs).
//
//   node bench/s3-list.mjs [--rounds N] [--count N]
//
// Run as `node bench/s3-list.mjs --case <id> <endpoint>` it is one case's child process.
import { fileURLToPath } from 'node:url';
import { busyWarning, childCase, commandCase, ensureBuilt, machineFacts, nodeCase, progress, roundsFromArgv, runCases, runScript, saveResults, table, wholeNumberOption, withoutCaBundle } from './lib/measure.mjs';
import { BENCH_BUCKET, S3RVER_CREDENTIALS, bucketConfig, seededS3rver } from './lib/s3rver.mjs';

const script = fileURLToPath(import.meta.url);
const RCLONE_LISTING_ONLY = 'rclone lsjson -R --no-mimetype --use-server-modtime';
const SERVER_FLOOR = 'Node fetch, unsigned, unparsed (server floor)';

const CASES = {
  async host(endpoint) {
    const { createBucketHost, SigningEgress } = await import('@inseam/connector-bucket');
    const egress = new SigningEgress({ origins: [endpoint], region: 'us-east-1', credentials: async () => S3RVER_CREDENTIALS });
    const host = await createBucketHost(bucketConfig(endpoint), { egress });
    await childCase(async () => {
      let count = 0;
      let cursor;
      do {
        const page = await host.list(cursor === undefined ? {} : { cursor });
        count += page.entries.length;
        cursor = page.cursor;
      } while (cursor !== undefined);
      return count;
    });
    await egress.close();
  },
  /** The same pages fetched bare: no signature, no XML parsing, keys counted by a regex. */
  async raw(endpoint) {
    await childCase(async () => {
      let count = 0;
      let token;
      do {
        const query = new URLSearchParams({ 'list-type': '2', 'max-keys': '1000' });
        if (token !== undefined) query.set('continuation-token', token);
        const response = await fetch(`${endpoint}/${BENCH_BUCKET}?${query}`);
        if (response.status !== 200) throw new Error(`ListObjectsV2 answered ${response.status}`);
        const xml = await response.text();
        count += xml.match(/<Key>/g)?.length ?? 0;
        token = /<IsTruncated>true<\/IsTruncated>/.test(xml) ? /<NextContinuationToken>([^<]+)</.exec(xml)?.[1] : undefined;
      } while (token !== undefined);
      return count;
    });
  },
  async start() {
    await import('@inseam/connector-bucket');
    return childCase(async () => 0);
  },
};

function rcloneEnv(endpoint) {
  return {
    ...withoutCaBundle(),
    RCLONE_CONFIG: '/dev/null',
    RCLONE_CONFIG_BENCH_TYPE: 's3',
    RCLONE_CONFIG_BENCH_PROVIDER: 'Other',
    RCLONE_CONFIG_BENCH_ENDPOINT: endpoint,
    RCLONE_CONFIG_BENCH_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
    RCLONE_CONFIG_BENCH_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    RCLONE_CONFIG_BENCH_REGION: 'us-east-1',
    RCLONE_CONFIG_BENCH_FORCE_PATH_STYLE: 'true',
  };
}

function casesFor(endpoint, count) {
  const env = rcloneEnv(endpoint);
  const remote = `bench:${BENCH_BUCKET}`;
  const files = (out) => JSON.parse(out).filter((item) => !item.IsDir).length;
  const all = { expect: count };
  return [
    nodeCase('inseam bucket host list() to the end', script, 'host', [endpoint], all),
    commandCase('rclone lsjson -R', 'rclone', ['lsjson', '-R', remote], { ...all, env, count: files, short: 'rclone' }),
    // By default rclone HEADs every object for its MIME type and its own modtime metadata; these
    // flags leave it the listing requests alone, the same information our host returns.
    commandCase(RCLONE_LISTING_ONLY, 'rclone', ['lsjson', '-R', '--no-mimetype', '--use-server-modtime', remote], {
      ...all,
      env,
      count: files,
      short: 'rclone listing only',
    }),
    nodeCase(SERVER_FLOOR, script, 'raw', [endpoint], { ...all, short: 'server floor' }),
    nodeCase('Node start + import only', script, 'start', []),
  ];
}

async function main(argv) {
  const rounds = roundsFromArgv(argv, 5);
  const count = wholeNumberOption(argv, '--count', 10_000);
  ensureBuilt(['connectors/bucket']);
  const machine = machineFacts();
  const bucket = await import('@inseam/connector-bucket');
  process.stderr.write(`s3-list: starting s3rver (seeding ${count} objects on the first run)…\n`);
  const server = await seededS3rver(count, bucket);
  try {
    console.log(`s3-list — ${machine.date}, ${machine.cpu}, ${machine.memoryGiB} GiB, ${machine.node}, load ${machine.loadAverageAtStart}`);
    const busy = busyWarning();
    if (busy !== '') console.log(busy);
    const rows = await runCases(casesFor(server.endpoint, count), { rounds, onProgress: progress('s3-list') });
    console.log(`\n${count.toLocaleString('en-US')} objects of 1–4 KiB (100 a folder) in s3rver 3.7.1 on ${server.endpoint}\n`);
    console.log(table(rows, { baselines: ['rclone lsjson -R', RCLONE_LISTING_ONLY, SERVER_FLOOR], countLabel: 'objects' }));
    console.log(`\nraw results: ${await saveResults('s3-list', { benchmark: 's3-list', machine, rounds, count, rows })}`);
  } finally {
    await server.stop();
  }
}

await runScript(CASES, main);
