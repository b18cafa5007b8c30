/** Which objects check 5 reads: a spread sample, the same for the same seed. */
import { describe, expect, it } from 'vitest';
import type { Entry } from '@inseam/connector';
import { READ_BUDGET, pickReadSample } from './read.js';

const entry = (path: string, size?: number): Entry => ({ path, ...(size === undefined ? {} : { size }) });

/** Twenty objects over four pages of five, sized 100, 200, … with one too large to read. */
const LISTING: Entry[] = Array.from({ length: 20 }, (_, index) => entry(`f${String(index).padStart(2, '0')}.txt`, index === 13 ? READ_BUDGET + 1 : (index + 1) * 100));

describe('pickReadSample', () => {
  it('reads the smallest, the largest within the budget and three at random, one from each third', () => {
    const picks = pickReadSample(LISTING, 42);
    expect(picks.slice(0, 2)).toEqual([
      { entry: LISTING[0], reason: 'smallest' },
      { entry: LISTING[19], reason: 'largest' },
    ]);
    const random = picks.slice(2);
    expect(random.map((pick) => pick.reason)).toEqual(['random', 'random', 'random']);
    // The 17 others (not the smallest, the largest or the one over budget), cut into thirds of 5, 6 and 6.
    const rest = LISTING.filter((_, index) => index !== 0 && index !== 19 && index !== 13);
    const thirds = [rest.slice(0, 5), rest.slice(5, 11), rest.slice(11)];
    random.forEach((pick, index) => expect(thirds[index]).toContain(pick.entry));
  });

  it('picks the same objects for the same seed, and others for other seeds', () => {
    const paths = (seed: number) => pickReadSample(LISTING, seed).map((pick) => pick.entry.path);
    expect(paths(42)).toEqual(paths(42));
    const seen = new Set(Array.from({ length: 20 }, (_, seed) => paths(seed).join(',')));
    expect(seen.size).toBeGreaterThan(1);
  });

  it('never picks an object listed larger than the budget', () => {
    for (let seed = 0; seed < 200; seed += 1) expect(pickReadSample(LISTING, seed).map((pick) => pick.entry)).not.toContain(LISTING[13]);
  });

  it('falls back to the first listed object when none has bytes within the budget, and may pick unsized ones at random', () => {
    const listing = [entry('big', READ_BUDGET * 2), entry('a'), entry('b'), entry('empty', 0)];
    const picks = pickReadSample(listing, 1);
    expect(picks[0]).toEqual({ entry: listing[0], reason: 'smallest' });
    expect(picks.slice(1).map((pick) => pick.entry.path)).toEqual(['a', 'b', 'empty']);
  });

  it('reads a one-object listing once', () => {
    expect(pickReadSample([entry('only', 5)], 3)).toEqual([{ entry: entry('only', 5), reason: 'smallest' }]);
  });
});
