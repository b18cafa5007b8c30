/**
 * A unified diff of two texts, line by line, for the edit tool's answer: the agent sees what
 * changed without reading the object again.
 *
 * The common head and tail are cut off first, so an edit in a large file costs the lines between
 * its first and last change; those are compared with Myers' O(ND) algorithm. When they differ in
 * more than MAX_EDIT_DISTANCE lines the middle is shown as removed and added whole — still a
 * correct diff, only a longer one — so a rewrite of a large file cannot take quadratic time.
 */

const CONTEXT = 3;
const MAX_EDIT_DISTANCE = 1000;

type Op = { readonly kind: ' ' | '-' | '+'; readonly line: string };

/** `--- a/name`, `+++ b/name` and the hunks; empty when the texts are equal. */
export function unifiedDiff(name: string, before: string, after: string): string {
  if (before === after) return '';
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  const middle = myers(a.slice(head, a.length - tail), b.slice(head, b.length - tail));
  const ops: Op[] = [...a.slice(0, head).map((line) => ({ kind: ' ' as const, line })), ...middle, ...a.slice(a.length - tail).map((line) => ({ kind: ' ' as const, line }))];
  return [`--- a/${name}`, `+++ b/${name}`, ...hunks(ops)].join('\n') + '\n';
}

/** Lines with their ends kept off, and a marker line for a missing final newline as diff(1) writes it. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  else lines[lines.length - 1] = `${lines[lines.length - 1]}\n\\ No newline at end of file`;
  return lines;
}

function myers(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, offset, d);
    }
  }
  return [...a.map((line) => ({ kind: '-' as const, line })), ...b.map((line) => ({ kind: '+' as const, line }))];
}

function backtrack(trace: readonly Int32Array[], a: readonly string[], b: readonly string[], offset: number, last: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = last; d > 0; d--) {
    const v = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
    const previousK = down ? k + 1 : k - 1;
    const previousX = v[offset + previousK]!;
    const previousY = previousX - previousK;
    while (x > previousX && y > previousY) {
      ops.push({ kind: ' ', line: a[x - 1]! });
      x -= 1;
      y -= 1;
    }
    if (down) ops.push({ kind: '+', line: b[y - 1]! });
    else ops.push({ kind: '-', line: a[x - 1]! });
    x = previousX;
    y = previousY;
  }
  while (x > 0 && y > 0) {
    ops.push({ kind: ' ', line: a[x - 1]! });
    x -= 1;
    y -= 1;
  }
  return ops.reverse();
}

/** The ops as `@@ -l,s +l,s @@` hunks with CONTEXT lines around each change. */
function hunks(ops: readonly Op[]): string[] {
  const out: string[] = [];
  let index = 0;
  const lineA: number[] = [];
  const lineB: number[] = [];
  let atA = 1;
  let atB = 1;
  for (const op of ops) {
    lineA.push(atA);
    lineB.push(atB);
    if (op.kind !== '+') atA += 1;
    if (op.kind !== '-') atB += 1;
  }
  while (index < ops.length) {
    while (index < ops.length && ops[index]!.kind === ' ') index += 1;
    if (index === ops.length) break;
    const start = Math.max(0, index - CONTEXT);
    let end = index;
    // Extend while the next change is close enough that the contexts would touch.
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== ' ') end += 1;
      let next = end;
      while (next < ops.length && ops[next]!.kind === ' ') next += 1;
      if (next < ops.length && next - end <= 2 * CONTEXT) end = next;
      else break;
    }
    const stop = Math.min(ops.length, end + CONTEXT);
    const slice = ops.slice(start, stop);
    const countA = slice.filter((op) => op.kind !== '+').length;
    const countB = slice.filter((op) => op.kind !== '-').length;
    const fromA = countA === 0 ? lineA[start]! - 1 : lineA[start]!;
    const fromB = countB === 0 ? lineB[start]! - 1 : lineB[start]!;
    out.push(`@@ -${fromA},${countA} +${fromB},${countB} @@`);
    for (const op of slice) out.push(`${op.kind}${op.line}`);
    index = stop;
  }
  return out;
}
