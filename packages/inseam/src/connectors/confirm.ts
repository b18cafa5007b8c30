/**
 * The phrase a person types to approve a connector. It names the kind and the start of the module's
 * sha, so the person has read what they approve; it is a check on attention, not a secret — the
 * gate is who may approve (a person's token with `connectors.approve`, or the CLI on a terminal).
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';

/** Hex digits of the sha the phrase carries. */
export const CONFIRM_SHA_DIGITS = 12;

export function confirmationPhrase(kind: string, sha: string): string {
  return `approve ${kind} ${sha.slice(0, CONFIRM_SHA_DIGITS)}`;
}

/** Throws `invalid_argument` (argument `confirm`) unless `typed` is the phrase (spaces collapsed). */
export function checkConfirmation(typed: unknown, kind: string, sha: string): void {
  const expected = confirmationPhrase(kind, sha);
  const given = typeof typed === 'string' ? typed.trim().replace(/\s+/g, ' ') : '';
  if (given !== expected) {
    throw new InvalidArgumentError(`Approval needs a person to confirm it: type "${expected}" in the confirmation field.`, { details: { argument: 'confirm', reason: 'confirmation_mismatch' } });
  }
}
