import { describe, expect, it } from 'vitest';
import { unifiedDiff } from './diff.js';

const numbered = (count: number): string => Array.from({ length: count }, (_, index) => `l${index + 1}\n`).join('');

describe('unifiedDiff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff('a.txt', 'x\n', 'x\n')).toBe('');
  });

  it('gives one hunk with three lines of context around a change', () => {
    const before = numbered(10);
    const after = before.replace('l5\n', 'five\n');
    expect(unifiedDiff('a.txt', before, after)).toBe(['--- a/a.txt', '+++ b/a.txt', '@@ -2,7 +2,7 @@', ' l2', ' l3', ' l4', '-l5', '+five', ' l6', ' l7', ' l8', ''].join('\n'));
  });

  it('gives far-apart changes their own hunks and joins near ones', () => {
    const before = numbered(40);
    const far = unifiedDiff('a', before, before.replace('l2\n', 'two\n').replace('l30\n', 'thirty\n'));
    expect(far.match(/^@@ .* @@$/gm)).toEqual(['@@ -1,5 +1,5 @@', '@@ -27,7 +27,7 @@']);
    const near = unifiedDiff('a', before, before.replace('l10\n', 'ten\n').replace('l14\n', 'fourteen\n'));
    expect(near.match(/^@@ .* @@$/gm)).toEqual(['@@ -7,11 +7,11 @@']);
  });

  it('counts insertions and removals, and marks a missing final newline', () => {
    expect(unifiedDiff('a', 'a\nb\n', 'a\nb\nc\n')).toBe('--- a/a\n+++ b/a\n@@ -1,2 +1,3 @@\n a\n b\n+c\n');
    expect(unifiedDiff('a', 'a\nb\nc\n', 'a\nc\n')).toBe('--- a/a\n+++ b/a\n@@ -1,3 +1,2 @@\n a\n-b\n c\n');
    expect(unifiedDiff('a', 'a\nb', 'a\nb\n')).toBe('--- a/a\n+++ b/a\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n');
    expect(unifiedDiff('a', '', 'x\n')).toBe('--- a/a\n+++ b/a\n@@ -0,0 +1,1 @@\n+x\n');
  });

  it('stays a correct diff when the texts differ everywhere', () => {
    const before = numbered(3000);
    const after = before.replace(/l/g, 'm');
    const diff = unifiedDiff('a', before, after);
    expect(diff.split('\n').filter((line) => line.startsWith('-l')).length).toBe(3000);
    expect(diff.split('\n').filter((line) => line.startsWith('+m')).length).toBe(3000);
  });
});
