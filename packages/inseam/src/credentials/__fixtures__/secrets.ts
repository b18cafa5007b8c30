import { inspect } from 'node:util';
import { expect } from 'vitest';

/** Every way an error may be shown or logged: message, stack, JSON, and a deep inspect with its cause chain. */
export function renderings(error: unknown): string[] {
  const out = [String(error), inspect(error, { depth: 20, showHidden: true })];
  if (error instanceof Error) out.push(error.message, error.stack ?? '');
  try {
    out.push(JSON.stringify(error));
  } catch {
    out.push('');
  }
  return out;
}

/** Asserts that none of `secrets` appears in any rendering of `error`. */
export function expectNoSecrets(error: unknown, secrets: readonly string[]): void {
  for (const text of renderings(error)) for (const secret of secrets) expect(text).not.toContain(secret);
}

/** The rejection of `promise` (fails the test when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}
