/**
 * The facts of messages already fetched, by mailbox, UIDVALIDITY and UID. The bytes of UID n
 * under one UIDVALIDITY never change (RFC 3501 §2.3.1.1), so headers, envelope and structure
 * fetched once stay true; only flags and MODSEQ move, and those are fetched on every listing.
 * This is what lets a rescan of an unchanged mailbox fetch no headers or structure at all.
 */
/** Facts kept per session; past this many the oldest are dropped (refetched when next listed). */
const CACHE_LIMIT = 50_000;

export class FactsCache<Facts = unknown> {
  readonly #facts = new Map<string, Facts>();

  static key(mailbox: string, uidValidity: string, uid: number): string {
    return `${mailbox}\u0000${uidValidity}\u0000${uid}`;
  }

  get(key: string): Facts | undefined {
    return this.#facts.get(key);
  }

  set(key: string, facts: Facts): void {
    this.#facts.delete(key);
    this.#facts.set(key, facts);
    if (this.#facts.size > CACHE_LIMIT) this.#facts.delete(this.#facts.keys().next().value!);
  }

  get size(): number {
    return this.#facts.size;
  }
}

