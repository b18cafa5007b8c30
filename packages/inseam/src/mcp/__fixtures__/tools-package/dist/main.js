// The package's main module: init(ctx) runs once when the loader loads it; the hosted tools read
// what it recorded, so a test can see they share the module instance the loader initialised.
import { z } from 'zod';

let initialisedFor;

export function init(ctx) {
  initialisedFor = ctx.packageId;
}

export const hostedTools = [
  {
    name: 'word_count',
    description: 'Counts the words of an object the caller may read.',
    inputSchema: z.object({ address: z.string() }),
    annotations: { readOnlyHint: true, destructiveHint: false },
    async call(args, { caller, fs }) {
      const page = await fs.read(caller, args.address);
      const words = page.content.split(/\s+/).filter((word) => word !== '').length;
      return { content: [{ type: 'text', text: `${words} words` }], structuredContent: { words, initialisedFor, user: caller.session.userId } };
    },
  },
  {
    name: 'wipe',
    description: 'Needs a feature the test grants to one caller only.',
    inputSchema: z.object({}),
    annotations: { readOnlyHint: false, destructiveHint: true },
    requires: { features: ['notes.wipe'] },
    async call() {
      return { content: [{ type: 'text', text: 'wiped' }] };
    },
  },
];
