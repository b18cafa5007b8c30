/**
 * Finding many spelled texts in bytes: the spellings (spellings.ts) of every text compile into one
 * NFA, which runs as a lazily built DFA — one table lookup a byte, however many texts and
 * spellings there are (an Aho–Corasick automaton generalised to patterns with alternatives).
 * Letter case folds in the NFA's edges, not in the input.
 *
 * The DFA only runs where a match can start. Every spelling is either a text's raw bytes (letter
 * case aside) or holds an introducer byte (`INTRODUCERS`), with at most `rawMax` raw bytes before
 * the first one. So, while no partial match is open, the scan skips ahead to the nearest of:
 * a window a case-folded Horspool search over the raw texts cannot rule out, `rawMax` bytes
 * before the next introducer (found with memchr), and `rawMax` bytes before the end of a piece
 * that more bytes will follow. Text with neither costs a Horspool step every few bytes.
 *
 * A match is found where it ends; where it starts is found by running the NFA backwards from
 * there, which only matches pay for. The same backward run tells how far back an open partial
 * match may reach, which is how much of a stream must be held back (see redact.ts).
 *
 * DFA states are made on first use and kept (at most MAX_DFA_STATES rows of 256); input that
 * would need more starts a fresh table, so hostile input costs time, never unbounded memory. A
 * compiled automaton is shared by every scan of the same texts.
 */
import { INTRODUCERS } from './spellings.js';
import type { Spell } from './spellings.js';

const MAX_DFA_STATES = 1024;
const UNKNOWN = -1;
const FOLD = new Uint8Array(256).map((_, byte) => (byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte));

/**
 * The NFA: each state has at most one byte edge — one byte, or two (a letter's cases) — to one
 * target, and epsilon edges. `edgeA[s]` is -1 for a state without a byte edge.
 */
class Nfa {
  readonly edgeA: number[] = [];
  readonly edgeB: number[] = [];
  readonly edgeTarget: number[] = [];
  readonly epsilon: number[][] = [];
  readonly accepting: boolean[] = [];

  state(): number {
    this.edgeA.push(-1);
    this.edgeB.push(-1);
    this.edgeTarget.push(-1);
    this.epsilon.push([]);
    this.accepting.push(false);
    return this.edgeA.length - 1;
  }

  get size(): number {
    return this.edgeA.length;
  }

  /** Whether state `s` has a byte edge on `byte`. */
  takes(s: number, byte: number): boolean {
    return this.edgeA[s] === byte || this.edgeB[s] === byte;
  }

  /** Adds `spell` from state `from`; returns its end state and longest length. */
  emit(from: number, spell: Spell): { end: number; length: number } {
    if ('bytes' in spell) {
      if (spell.bytes.length > 2) return this.emit(from, { alt: spell.bytes.map((byte) => ({ bytes: [byte] })) });
      let at = from;
      if (this.edgeA[at] !== -1) {
        at = this.state();
        this.epsilon[from]!.push(at);
      }
      const end = this.state();
      this.edgeA[at] = spell.bytes[0]!;
      this.edgeB[at] = spell.bytes[1] ?? -1;
      this.edgeTarget[at] = end;
      return { end, length: 1 };
    }
    if ('seq' in spell) {
      let at = from;
      let length = 0;
      for (const part of spell.seq) {
        const next = this.emit(at, part);
        at = next.end;
        length += next.length;
      }
      return { end: at, length };
    }
    const join = this.state();
    let length = 0;
    for (const option of spell.alt) {
      const branch = this.state();
      this.epsilon[from]!.push(branch);
      const next = this.emit(branch, option);
      this.epsilon[next.end]!.push(join);
      length = Math.max(length, next.length);
    }
    return { end: join, length };
  }
}

/** One generation of DFA states. Row `s` of `table` holds state s's 256 transitions; state 0 is "nothing open". */
class DfaCache {
  table = new Int32Array(256 * 16).fill(UNKNOWN);
  /** The NFA states of each DFA state beyond the always-active start closure. */
  readonly sets: number[][] = [];
  readonly accepting: boolean[] = [];
  readonly index = new Map<string, number>();

  get full(): boolean {
    return this.sets.length >= MAX_DFA_STATES;
  }
}

export interface MatchSpan {
  /** First byte of the match. */
  readonly start: number;
  /** One past its last byte. */
  readonly end: number;
}

/** A text to find: how it may be spelled, and its raw bytes. */
export interface AutomatonText {
  readonly spell: Spell;
  readonly raw: Uint8Array;
}

/** The state `followKnown` stopped in (a module variable, so the hot loop returns one number). */
let followed = 0;

/**
 * The hot loop: follows known transitions that open or continue a partial match, from `state`
 * over `bytes[from, ...)`. In the start state, bytes on which it stays put are skipped without the
 * dependent table load. Stops at the end, at a transition not known yet or into a match, or in
 * the start state at `until`. Returns the index reached and leaves the state in `followed`.
 */
function followKnown(table: Int32Array, leavesStart: Uint8Array, bytes: Uint8Array, from: number, until: number, state: number): number {
  const to = bytes.length;
  let i = from;
  while (i < to) {
    if (state === 0) {
      while (i < until && leavesStart[bytes[i]!] === 0) i++;
      if (i >= until) break;
    }
    const value = table[(state << 8) | bytes[i]!]!;
    if (value < 0) break;
    state = value;
    i++;
  }
  followed = state;
  return i;
}

/** Where a scan stands between pieces: a DFA state of one cache generation. */
interface ScanPosition {
  cache: DfaCache | null;
  state: number;
  states: readonly number[];
}

export class SpellingAutomaton {
  /** The longest spelling of any text, in bytes. */
  readonly maxLength: number;
  private readonly nfa = new Nfa();
  private readonly isStart: boolean[];
  private readonly inStartClosure: Uint8Array;
  /** What the always-active start closure steps to on each byte, closed. */
  private readonly startStep: number[][];
  /** Bytes on which the start state goes anywhere but back to itself. */
  private readonly leavesStart = new Uint8Array(256);
  private readonly reverseEdges: number[][];
  private readonly reverseEpsilon: number[][];
  /** Longest raw text, and shortest (the Horspool window). */
  private readonly rawMax: number;
  private readonly window: number;
  /** Horspool shifts by the case-folded last two bytes of a window. */
  private readonly shift: Uint8Array;
  private cache: DfaCache;

  constructor(texts: readonly AutomatonText[]) {
    const nfa = this.nfa;
    const root = nfa.state();
    const starts: number[] = [];
    let maxLength = 0;
    for (const { spell } of texts) {
      const start = nfa.state();
      nfa.epsilon[root]!.push(start);
      starts.push(start);
      const { end, length } = nfa.emit(start, spell);
      nfa.accepting[end] = true;
      maxLength = Math.max(maxLength, length);
    }
    this.maxLength = maxLength;
    const count = nfa.size;
    this.isStart = Array.from({ length: count }, () => false);
    for (const start of starts) this.isStart[start] = true;
    const startClosure = this.closure([root], nfa.epsilon);
    this.inStartClosure = new Uint8Array(count);
    for (const state of startClosure) this.inStartClosure[state] = 1;
    this.startStep = [];
    for (let byte = 0; byte < 256; byte++) {
      this.startStep.push(this.closure(this.stepOver(startClosure, byte), nfa.epsilon));
      this.leavesStart[byte] = this.startStep[byte]!.length > 0 ? 1 : 0;
    }
    this.reverseEdges = Array.from({ length: count }, () => []);
    this.reverseEpsilon = Array.from({ length: count }, () => []);
    for (let state = 0; state < count; state++) {
      if (nfa.edgeA[state] !== -1) this.reverseEdges[nfa.edgeTarget[state]!]!.push(state);
      for (const target of nfa.epsilon[state]!) this.reverseEpsilon[target]!.push(state);
    }

    this.rawMax = Math.max(1, ...texts.map((text) => text.raw.length));
    this.window = Math.min(255, ...texts.map((text) => text.raw.length));
    this.shift = new Uint8Array(65536).fill(Math.max(0, this.window - 1));
    for (const { raw } of texts) {
      for (let j = 1; j < this.window; j++) {
        const gram = (FOLD[raw[j - 1]!]! << 8) | FOLD[raw[j]!]!;
        this.shift[gram] = Math.min(this.shift[gram]!, this.window - 1 - j);
      }
    }
    this.cache = this.freshCache();
  }

  private freshCache(): DfaCache {
    const cache = new DfaCache();
    this.intern(cache, []);
    return cache;
  }

  private closure(seeds: readonly number[], edges: readonly number[][]): number[] {
    const seen = new Set<number>();
    const stack = [...seeds];
    while (stack.length > 0) {
      const state = stack.pop()!;
      if (seen.has(state)) continue;
      seen.add(state);
      for (const next of edges[state]!) if (!seen.has(next)) stack.push(next);
    }
    return [...seen];
  }

  private stepOver(states: readonly number[], byte: number): number[] {
    const out: number[] = [];
    for (const state of states) if (this.nfa.takes(state, byte)) out.push(this.nfa.edgeTarget[state]!);
    return out;
  }

  private intern(cache: DfaCache, states: readonly number[]): number {
    const extra = states.filter((state) => this.inStartClosure[state] === 0).sort((a, b) => a - b);
    const unique = extra.filter((state, i) => i === 0 || extra[i - 1] !== state);
    const key = unique.join(',');
    const known = cache.index.get(key);
    if (known !== undefined) return known;
    const id = cache.sets.length;
    cache.sets.push(unique);
    cache.accepting.push(unique.some((state) => this.nfa.accepting[state]));
    cache.index.set(key, id);
    if (cache.table.length < (id + 1) * 256) {
      const grown = new Int32Array(Math.min(MAX_DFA_STATES, (id + 1) * 2) * 256).fill(UNKNOWN);
      grown.set(cache.table);
      cache.table = grown;
    }
    return id;
  }

  /** The transition from `state` on `byte`, computed and cached. */
  private transition(cache: DfaCache, state: number, byte: number): number {
    const next = this.closure([...this.startStep[byte]!, ...this.stepOver(cache.sets[state]!, byte)], this.nfa.epsilon);
    const id = this.intern(cache, next);
    cache.table[state * 256 + byte] = cache.accepting[id] === true ? -2 - id : id;
    return id;
  }

  /**
   * Runs the NFA backwards from `seeds` (states reached after byte `end - 1`) and returns the
   * earliest position, down to `floor`, at which one of their paths starts a text; `end` if none.
   */
  private earliestStart(bytes: Uint8Array, floor: number, end: number, seeds: readonly number[]): number {
    let active = this.closure(seeds, this.reverseEpsilon);
    let earliest = end;
    for (let at = end - 1; at >= floor && active.length > 0; at--) {
      const stepped: number[] = [];
      for (const state of active) {
        for (const source of this.reverseEdges[state]!) if (this.nfa.takes(source, bytes[at]!)) stepped.push(source);
      }
      active = this.closure(stepped, this.reverseEpsilon);
      if (active.some((state) => this.isStart[state])) earliest = at;
    }
    return earliest;
  }

  scanner(): SpellingScanner {
    return new SpellingScanner(this);
  }

  /**
   * The first position from `at` where a match may start while nothing is open (see the module
   * comment); `region.end` becomes where the DFA must have scanned to before looking again.
   * `last`: no bytes follow `bytes`.
   */
  private nextCandidate(bytes: Buffer, at: number, last: boolean, introducers: number[], region: { end: number }): number {
    const to = bytes.length;
    // The tail of a piece more bytes will follow is always scanned.
    let best = last ? to : Math.max(at, to - this.rawMax);
    region.end = to;
    for (let k = 0; k < INTRODUCERS.length; k++) {
      if (introducers[k]! < at) {
        const found = bytes.indexOf(INTRODUCERS[k]!, at);
        introducers[k] = found === -1 ? to : found;
      }
      const start = Math.max(at, introducers[k]! - this.rawMax);
      if (start < best) {
        best = start;
        region.end = introducers[k]! + 1;
      }
    }
    const window = this.window;
    if (window < 3) {
      region.end = to;
      return at;
    }
    const shift = this.shift;
    for (let end = at + window - 1; end < to && end - window + 1 < best; ) {
      const step = shift[(FOLD[bytes[end - 1]!]! << 8) | FOLD[bytes[end]!]!]!;
      if (step === 0) {
        region.end = end + 1;
        return end - window + 1;
      }
      end += step;
    }
    return best;
  }

  /** Runs over `bytes[from, end)` from `position`; calls `found` with each match's span. */
  run(position: ScanPosition, bytes: Buffer, from: number, last: boolean, found: (span: MatchSpan) => void): void {
    let cache = this.cache;
    let state = position.cache === cache ? position.state : this.intern(cache, position.states);
    const to = bytes.length;
    const introducers = [-1, -1, -1, -1];
    const region = { end: from };
    let i = from;
    for (;;) {
      i = followKnown(cache.table, this.leavesStart, bytes, i, region.end, state);
      state = followed;
      if (i >= to) break;
      if (state === 0 && i >= region.end) {
        i = this.nextCandidate(bytes, i, last, introducers, region);
        if (i >= to) break;
        continue;
      }
      // A transition not made yet, or one into a match.
      const value = cache.table[(state << 8) | bytes[i]!]!;
      if (value === UNKNOWN) {
        if (cache.full) {
          // Renewed for every scan: the others carry their states over by NFA set (above).
          const states = cache.sets[state]!;
          this.cache = cache = this.freshCache();
          state = this.intern(cache, states);
        }
        state = this.transition(cache, state, bytes[i]!);
      } else {
        state = -2 - value;
      }
      i++;
      if (cache.accepting[state] === true) {
        found({ start: this.earliestStart(bytes, 0, i, cache.sets[state]!.filter((nfaState) => this.nfa.accepting[nfaState])), end: i });
      }
    }
    position.cache = cache;
    position.state = state;
    position.states = cache.sets[state]!;
  }

  /** How far back in `bytes` (scanned to its end) an open partial match may start; `bytes.length` if none is open. */
  openFrom(position: ScanPosition, bytes: Uint8Array): number {
    if (position.states.length === 0) return bytes.length;
    return Math.min(bytes.length, this.earliestStart(bytes, 0, bytes.length, position.states));
  }
}

/** One pass over a stream of bytes, fed in pieces; matches may span pieces. */
export class SpellingScanner {
  private readonly position: ScanPosition = { cache: null, state: 0, states: [] };

  constructor(private readonly automaton: SpellingAutomaton) {}

  /**
   * Scans `bytes[from, bytes.length)`, continuing where the last call stopped; `bytes[0, from)`
   * are earlier bytes kept (from `openFrom`) so a match's start can be found in them. `last`:
   * no more bytes follow.
   */
  scan(bytes: Uint8Array, from: number, last: boolean, found: (span: MatchSpan) => void): void {
    const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.automaton.run(this.position, buffer, from, last, found);
  }

  /** After a scan: the first byte of `bytes` an open partial match may include (`bytes.length`: none). */
  openFrom(bytes: Uint8Array): number {
    return this.automaton.openFrom(this.position, bytes);
  }
}
