/**
 * Crawl progress for a person: on a terminal, one line redrawn in place with a bar (when the
 * total is known), entries, bytes, rate and ETA; elsewhere, a plain line at most every few
 * seconds, so logs stay readable.
 */
import type { CrawlProgress } from '../../catalog/index.js';
import { formatBytes, formatCount, formatCountOf, formatDuration, isTerminal } from './support.js';

const BAR_WIDTH = 24;
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const TERMINAL_REDRAW_MS = 100;
const PLAIN_EVERY_MS = 5000;

export interface ProgressView {
  update(progress: CrawlProgress): void;
  /** Clears the line (terminal) so the summary starts on a clean one. */
  finish(): void;
}

/** One progress line. With `bar`, a bar when the total is known, a spinner frame otherwise. */
export function progressLine(label: string, progress: CrawlProgress, options: { readonly bar: boolean; readonly frame?: number } = { bar: false }): string {
  const parts: string[] = [];
  const entries = progress.total === null ? formatCountOf(progress.entries, 'entry', 'entries') : `${formatCount(progress.entries)}/${formatCountOf(progress.total, 'entry', 'entries')}`;
  parts.push(entries, formatBytes(progress.bytes), `${formatCount(Math.round(progress.rate))}/s`);
  if (progress.etaMs !== null && progress.state === 'running') parts.push(`ETA ${formatDuration(progress.etaMs)}`);
  if (progress.phase === 'sweep') parts.push('removing what is gone');
  if (progress.errors > 0) parts.push(formatCountOf(progress.errors, 'error', 'errors'));
  if (!options.bar) return `${label}: ${parts.join(', ')}`;
  if (progress.fraction === null) return `${label} ${SPINNER[(options.frame ?? 0) % SPINNER.length]} ${parts.join(' · ')}`;
  const filled = Math.round(progress.fraction * BAR_WIDTH);
  const percent = `${Math.floor(progress.fraction * 100)}%`.padStart(4);
  return `${label} [${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}] ${percent} ${parts.join(' · ')}`;
}

export function progressView(stream: NodeJS.WritableStream, label: string, now: () => number = Date.now): ProgressView {
  const terminal = isTerminal(stream);
  const columns = (): number => (stream as { columns?: number }).columns ?? 80;
  let last = 0;
  let frame = 0;
  let drawn = false;
  return {
    update(progress) {
      const at = now();
      if (at - last < (terminal ? TERMINAL_REDRAW_MS : PLAIN_EVERY_MS)) return;
      last = at;
      if (!terminal) {
        stream.write(`${progressLine(label, progress)}\n`);
        return;
      }
      frame += 1;
      stream.write(`\r\x1b[2K${progressLine(label, progress, { bar: true, frame }).slice(0, columns() - 1)}`);
      drawn = true;
    },
    finish() {
      if (drawn) stream.write('\r\x1b[2K');
    },
  };
}
