// A deterministic text corpus for the catalog benchmark: documents of words drawn from a Zipf
// distribution (a few very common words, a long tail of rare ones), with recurring phrases and one
// identifier unique to each document, so a search has common words, rare words, phrases and
// prefixes to look for. Every document is a pure function of its index, so a changed file can be
// put back exactly as it was.

/** Words in the vocabulary; rank r is drawn with probability proportional to 1 / r. */
const VOCABULARY_SIZE = 30_000;
/** Phrases planted in documents (each document gets 0–3, the first ones most often). */
const PHRASES = [
  'quarterly budget review',
  'service level agreement',
  'release candidate build',
  'customer support ticket',
  'root cause analysis',
  'machine learning model',
  'data retention policy',
  'incident response plan',
  'pull request review',
  'load balancer health check',
  'end of life notice',
  'single sign on',
  'disk usage report',
  'annual performance summary',
  'vendor contract renewal',
  'password reset request',
  'network latency spike',
  'backup restore test',
  'feature flag rollout',
  'security patch deadline',
];

// The most common words, real English ones, so queries read naturally; the tail is made up.
const COMMON = (
  'the of and to in is that for it as with was on be by this are from at or an have not which ' +
  'but all were when we there can more if will one about so out up them some what time into only ' +
  'other new report data project team system user server file change update meeting budget plan ' +
  'review build test release design issue customer service network storage backup security policy ' +
  'model analysis support request version process note week month quarter result status deadline ' +
  'document schedule contract vendor invoice account access error log metric latency disk memory'
)
  .split(' ')
  .filter((word, index, all) => all.indexOf(word) === index);

const SYLLABLES = 'ka ro mi te su la no vi pe da ze bo ri ga lu fo ne si to ma ku re ha yo ji wa be ce di fu'.split(' ');

/** The word of rank `rank` (0 is the most common). */
function wordOfRank(rank) {
  if (rank < COMMON.length) return COMMON[rank];
  // Base-30 digits over syllables, at least three, with a fixed tail letter: distinct, pronounceable, never a COMMON word.
  let n = rank - COMMON.length;
  let word = '';
  for (let digits = 0; digits < 3 || n > 0; digits += 1) {
    word += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  }
  return `${word}n`;
}

const WORDS = Array.from({ length: VOCABULARY_SIZE }, (_, rank) => wordOfRank(rank));
const CUMULATIVE = (() => {
  const weights = new Float64Array(VOCABULARY_SIZE);
  let total = 0;
  for (let rank = 0; rank < VOCABULARY_SIZE; rank += 1) total = weights[rank] = total + 1 / (rank + 1);
  for (let rank = 0; rank < VOCABULARY_SIZE; rank += 1) weights[rank] /= total;
  return weights;
})();

/** mulberry32: a small, fast 32-bit generator; exact in JavaScript numbers (unlike a 31-bit LCG with a large multiplier). */
function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function zipfRank(u) {
  let low = 0;
  let high = VOCABULARY_SIZE - 1;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (CUMULATIVE[mid] < u) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The identifier only document `index` holds (`docid` + base 36), for single-hit queries. */
function documentId(index) {
  return `docid${index.toString(36)}`;
}

/**
 * Document `index`'s text, exactly `size` bytes of ASCII: lines of about 12 words, its identifier
 * on the first line, and its phrases at random positions.
 */
export function documentText(index, size) {
  const random = generator(index * 2654435761 + 1);
  const phrases = [];
  for (let i = Math.floor(random() * 4); i > 0; i -= 1) phrases.push(PHRASES[Math.floor(random() ** 2 * PHRASES.length)]);
  const parts = [`${documentId(index)}\n`];
  let length = parts[0].length;
  let onLine = 0;
  while (length < size) {
    const word = phrases.length > 0 && random() < 0.01 ? phrases.pop() : WORDS[zipfRank(random())];
    onLine += 1;
    const piece = onLine >= 12 ? `${word}\n` : `${word} `;
    if (onLine >= 12) onLine = 0;
    parts.push(piece);
    length += piece.length;
  }
  return parts.join('').slice(0, size);
}

/** The relative path of document `index` in a tree fixture: `d{k}/e{j}/file-{index}.txt`, 100 a folder. */
export function documentPath(index) {
  const folder = Math.floor(index / 100);
  return `d${Math.floor(folder / 100)}/e${folder % 100}/file-${index}.txt`;
}

/** Document `index`'s modification time: one a minute from 2024-01-01, so no two files share a second. */
export function documentMtimeMs(index) {
  return Date.UTC(2024, 0, 1) + index * 60_000;
}

/**
 * 210 queries in six kinds, the same list on every run: single common words, rare words (a
 * vocabulary tail word in ~100–200 documents; a document identifier in one), quoted phrases
 * (planted ones, and pairs of common words), two words (both must occur), and prefix queries
 * (`word*`, two letters apart from three or more). `count` is the number
 * of documents, so identifiers that exist are chosen.
 */
export function searchQueries(count) {
  const random = generator(42);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const queries = [];
  for (let rank = 0; rank < 50; rank += 1) queries.push({ kind: 'common word', text: WORDS[rank * 2] });
  for (let i = 0; i < 30; i += 1) queries.push({ kind: 'rare word', text: WORDS[15_000 + Math.floor(random() * 15_000)] });
  for (let i = 0; i < 20; i += 1) queries.push({ kind: 'rare word', text: documentId(Math.floor(random() * count)) });
  for (const phrase of PHRASES) queries.push({ kind: 'phrase', text: `"${phrase}"` });
  for (let i = 0; i < 20; i += 1) queries.push({ kind: 'phrase', text: `"${WORDS[Math.floor(random() * 20)]} ${WORDS[Math.floor(random() * 20)]}"` });
  for (let i = 0; i < 20; i += 1) queries.push({ kind: 'two words', text: `${pick(PHRASES).split(' ')[0]} ${WORDS[Math.floor(random() * 200)]}` });
  const prefixes = ['rep', 'sec', 'bud', 'cust', 'ne', 'de', 'ma', 'kar', 'rosu', 'tem', 'ser', 'vendo', 'lat', 'ba', 'sch'];
  // Two-letter prefixes are their own kind: the targets exempt them (they expand to most words).
  const prefixKind = (prefix) => (prefix.length <= 2 ? 'prefix, 2 letters' : 'prefix, 3+ letters');
  for (const prefix of prefixes) queries.push({ kind: prefixKind(prefix), text: `${prefix}*` });
  for (let i = 0; i < 35; i += 1) {
    const word = WORDS[100 + Math.floor(random() * 3000)];
    const prefix = word.slice(0, 2 + Math.floor(random() * 3));
    queries.push({ kind: prefixKind(prefix), text: `${prefix}*` });
  }
  return queries;
}
