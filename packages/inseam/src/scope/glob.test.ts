import { describe, expect, it } from 'vitest';
import { compileGlob, type GlobMode } from './glob.js';

function matcher(pattern: string, mode: GlobMode = 'path'): (value: string) => boolean {
  const result = compileGlob(pattern, mode);
  if (!('regexp' in result)) throw new Error(`unexpected problem: ${result.problem}`);
  return (value) => result.regexp.test(value);
}

function problem(pattern: string, mode: GlobMode = 'path'): string {
  const result = compileGlob(pattern, mode);
  if (!('problem' in result)) throw new Error(`expected ${pattern} to be refused`);
  return result.problem;
}

/** The definition, written the slow obvious way: recursion over segments and characters. */
function reference(pattern: string, value: string, mode: GlobMode): boolean {
  const charMatch = (p: string, v: string, star: string): boolean => {
    const memo = new Map<string, boolean>();
    const go = (pi: number, vi: number): boolean => {
      const key = `${pi},${vi}`;
      if (memo.has(key)) return memo.get(key)!;
      let result: boolean;
      if (pi === p.length) result = vi === v.length;
      else if (p[pi] === '*') result = go(pi + 1, vi) || (vi < v.length && !star.includes(v[vi]!) && go(pi, vi + 1));
      else if (p[pi] === '?') result = vi < v.length && !star.includes(v[vi]!) && go(pi + 1, vi + 1);
      else result = vi < v.length && p[pi] === v[vi] && go(pi + 1, vi + 1);
      memo.set(key, result);
      return result;
    };
    return go(0, 0);
  };
  if (mode === 'text') return charMatch(pattern.replace(/\*+/g, '*'), value, '');
  const ps = pattern.split('/');
  const vs = value.split('/');
  const go = (pi: number, vi: number): boolean => {
    if (pi === ps.length) return vi === vs.length;
    if (ps[pi] === '**') {
      if (pi === ps.length - 1) return pi === 0 || vi < vs.length;
      for (let k = vi; k <= vs.length; k++) if (go(pi + 1, k)) return true;
      return false;
    }
    return vi < vs.length && charMatch(ps[pi]!, vs[vi]!, '/') && go(pi + 1, vi + 1);
  };
  return go(0, 0);
}

describe('path globs', () => {
  it.each([
    ['*.md', ['a.md', '.md', 'x.y.md'], ['a/b.md', 'a.mdx', 'md']],
    ['docs/*', ['docs/a', 'docs/.hidden'], ['docs', 'docs/a/b', 'doc/a']],
    ['**', ['a', 'a/b/c'], []],
    ['**/.DS_Store', ['.DS_Store', 'a/.DS_Store', 'a/b/.DS_Store'], ['a/.DS_Store/x', 'x.DS_Store']],
    ['.git/**', ['.git/config', '.git/refs/heads/main'], ['.git', 'a/.git/config']],
    ['**/node_modules/**', ['node_modules/x', 'a/node_modules/b/c'], ['node_modules', 'a/node_modulesx/b']],
    ['a/**/b', ['a/b', 'a/x/b', 'a/x/y/b'], ['a/xb', 'b', 'a/b/c']],
    ['a/**/b/**/c', ['a/b/c', 'a/1/b/2/3/c', 'a/b/b/c'], ['a/c', 'a/b/c/d']],
    ['**/**/x', ['x', 'a/x'], ['a/y']],
    ['file?.txt', ['file1.txt', 'fileé.txt'], ['file.txt', 'file12.txt', 'file/.txt']],
    ['[abc]*', ['apple', 'cat'], ['dog', '']],
    ['[!abc]*', ['dog'], ['apple']],
    ['[^a-c]x', ['dx'], ['bx', '/x']],
    ['[a-z][0-9]', ['a1', 'z9'], ['A1', 'aa']],
    ['[]]', [']'], ['a']],
    ['\\*star', ['*star'], ['xstar']],
    ['a\\?', ['a?'], ['ab']],
    ['%2A*', ['%2Ax'], ['*x']],
    ['*a*a*a*b', ['aaab', 'xaxaxaxb'], ['aaaa']],
    ['世界/*', ['世界/x'], ['世/x']],
  ])('%s', (pattern, yes, no) => {
    const test = matcher(pattern);
    for (const value of yes) expect(test(value), `${pattern} ~ ${value}`).toBe(true);
    for (const value of no) expect(test(value), `${pattern} !~ ${value}`).toBe(false);
  });

  it('agrees with the obvious definition on every small pattern and path', () => {
    const patterns = new Set<string>();
    const build = (segments: string[], depth: number): void => {
      if (segments.length > 0) patterns.add(segments.join('/'));
      if (depth === 0) return;
      for (const segment of ['a', '*', '?', '**', '*a', 'a*b', '*a*', '*b*a']) build([...segments, segment], depth - 1);
    };
    build([], 3);
    const values: string[] = [];
    const makeValues = (prefix: string, depth: number): void => {
      for (const segment of ['a', 'b', 'ab', 'bab']) {
        const value = prefix === '' ? segment : `${prefix}/${segment}`;
        values.push(value);
        if (depth > 1) makeValues(value, depth - 1);
      }
    };
    makeValues('', 3);
    let checked = 0;
    for (const pattern of patterns) {
      const test = matcher(pattern);
      for (const value of values) {
        expect(test(value), `${pattern} ~ ${value}`).toBe(reference(pattern.replace(/\*\*(\/\*\*)+/g, '**'), value, 'path'));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40_000);
  });

  it('stays linear on a pattern built to make a backtracking matcher explode', () => {
    const test = matcher(`${'*a'.repeat(20)}*b`);
    expect(test('a'.repeat(5000))).toBe(false);
    const deep = matcher('**/a/**/a/**/a/**/b');
    expect(deep(Array.from({ length: 2000 }, () => 'a').join('/'))).toBe(false);
  });

  it.each([
    ['', 'empty'],
    ['/docs/**', 'starts with "/"'],
    ['docs/', 'ends with "/"'],
    ['a//b', 'empty segment'],
    ['a**', '"**" must be a whole segment'],
    ['a/**b/c', '"**" must be a whole segment'],
    ['[abc', 'never closed'],
    ['[z-a]', 'backwards'],
    ['[.-0]', 'covers "/"'],
    ['a\\/b', 'separates segments'],
    ['a\\', 'lone "\\"'],
  ])('refuses %j', (pattern, message) => {
    expect(problem(pattern)).toContain(message);
  });

  it('treats an escaped backslash before "/" as a literal backslash', () => {
    expect(matcher('a\\\\/b')('a\\/b')).toBe(true);
  });
});

describe('text globs', () => {
  it('lets * and ** cross "/"', () => {
    expect(matcher('image/*', 'text')('image/png')).toBe(true);
    expect(matcher('*invoice*', 'text')('Re: invoice 3/4')).toBe(true);
    expect(matcher('a**b', 'text')('a/x/b')).toBe(true);
    expect(matcher('?', 'text')('/')).toBe(true);
    expect(matcher('*.pdf', 'text')('a.pdf.txt')).toBe(false);
  });

  it('agrees with the obvious definition', () => {
    const values = ['', 'a', 'ab', 'ba', 'a/b', 'aab/', 'b/a/b', 'abab'];
    for (const pattern of ['*', 'a*', '*a', '*a*', 'a*b', '*/*', '?*?', 'a**b', '*b*a*', '??']) {
      const test = matcher(pattern, 'text');
      for (const value of values) expect(test(value), `${pattern} ~ ${value}`).toBe(reference(pattern, value, 'text'));
    }
  });
});
