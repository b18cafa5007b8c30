/**
 * "Did you mean fs?" for a `--kind` that is not a kind: the real kind whose name, label or
 * category is nearest to what was typed (`folder` → fs, whose label is Folder; `bukcet` →
 * bucket), or none when nothing is near enough to be a likely meant.
 */
import { ConnectorError } from '@neuralis/package-system/contracts';

export interface KindName {
  readonly kind: string;
  readonly label: string;
  readonly category: string | null;
}

/** Levenshtein distance, two rows. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The kind nearest to `given`, or undefined. A kind's own name and whole label count before a
 * single word of its label or its category (so `folder` is fs, labelled Folder, rather than
 * local, labelled Project folder); a typo of up to a third of the word's letters is forgiven.
 */
export function nearestKind(given: string, kinds: readonly KindName[]): string | undefined {
  const typed = given.trim().toLowerCase();
  if (typed === '') return undefined;
  // Two letters off a two-letter kind is another word (s3 is not fs): short names must be exact.
  const allowed = Math.floor(typed.length / 3);
  let best: { readonly kind: string; readonly score: number } | undefined;
  for (const candidate of kinds) {
    const whole = [candidate.kind, candidate.label].map((name) => name.toLowerCase());
    const words = [...candidate.label.toLowerCase().split(/[^a-z0-9]+/), ...(candidate.category === null ? [] : [candidate.category.toLowerCase()])].filter((word) => word.length > 1);
    for (const [names, penalty] of [
      [whole, 0],
      [words, 1],
    ] as const) {
      for (const name of names) {
        const away = distance(typed, name);
        if (away > allowed) continue;
        const score = away * 2 + penalty;
        if (best === undefined || score < best.score) best = { kind: candidate.kind, score };
      }
    }
  }
  return best?.kind;
}

/** `kind_not_registered` for a kind that is not one, naming the nearest real kind when there is one. */
export function unknownKind(given: string, kinds: readonly KindName[]): ConnectorError {
  const suggestion = nearestKind(given, kinds);
  const hint = suggestion === undefined ? '' : ` Did you mean ${suggestion}?`;
  return new ConnectorError('kind_not_registered', `No connector kind "${given}" is registered.${hint} \`inseam host kinds\` lists the kinds there are.`, {
    details: { kind: given, ...(suggestion === undefined ? {} : { suggestion }) },
  });
}
