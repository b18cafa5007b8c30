/** Text gathered up to a limit; past it the extractor is stopped rather than left to run on. */

export class SinkFull extends Error {}

export class TextSink {
  readonly #max: number;
  readonly #parts: string[] = [];
  #length = 0;
  #truncated = false;

  constructor(max: number) {
    this.#max = max;
  }

  get truncated(): boolean {
    return this.#truncated;
  }

  /** Adds text; throws SinkFull once the limit is reached (the text up to it is kept). */
  push(text: string): void {
    if (text.length === 0) return;
    const room = this.#max - this.#length;
    if (text.length > room) {
      this.#parts.push(text.slice(0, room));
      this.#length = this.#max;
      this.#truncated = true;
      throw new SinkFull();
    }
    this.#parts.push(text);
    this.#length += text.length;
  }

  /** Ends a line, unless the text is empty or already ends one. */
  line(): void {
    const last = this.#parts.at(-1);
    if (last !== undefined && !last.endsWith('\n')) this.push('\n');
  }

  text(): string {
    return this.#parts.join('').trimEnd();
  }
}

/** Runs `fill`, treating a full sink as the normal end of the text. */
export async function gather(sink: TextSink, fill: () => void | Promise<void>): Promise<void> {
  try {
    await fill();
  } catch (error) {
    if (!(error instanceof SinkFull)) throw error;
  }
}
