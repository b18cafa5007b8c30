/**
 * The prelude's source: our own polyfills, evaluated in each QuickJS runtime before the connector
 * module (what it offers and how it talks to the sandbox process: `packages/inseam/quickjs/prelude.js`).
 *
 * It is a script QuickJS evaluates, not a module of the build, so it lives outside src/ (as the web
 * page does) and is read once, here, from the path that is the same relative to this module in
 * src/ and in dist/. It is type-checked and linted as JavaScript in `npm test`.
 */
import { readFileSync } from 'node:fs';

/** Evaluates to `(host, MAX_CHUNK, WINDOW, BASE) => { receive, init }`. */
export const PRELUDE_SOURCE: string = readFileSync(new URL('../../quickjs/prelude.js', import.meta.url), 'utf8');
