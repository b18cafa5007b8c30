/**
 * Vitest runs its workers with `--conditions inseam-source` so workspace packages resolve to their
 * TypeScript sources; Node then also picks the `source` export of third-party packages that ship
 * one (the SDK client's eventsource-parser). Registering the sandbox's source hooks lets Node
 * compile those .ts files on load. Import this module before the SDK's HTTP client.
 */
import { register } from 'node:module';

register(new URL('../../sandbox/source-hooks.mjs', import.meta.url));
