/**
 * Checks of the fields a person (or a `sources[]` declaration) gives a host, beyond the kind's
 * config schema and the scope grammar. Each throws a typed error naming the field.
 */
import type { Description } from '@inseam/connector';
import { InvalidArgumentError, InvalidConfigError, type OwnershipScope, type SourceSyncSettings } from '@neuralis/package-system/contracts';
import { isPositiveIsoDuration } from '@neuralis/package-system/manifest';
import { excludeMatcher } from '../crawl/index.js';
import type { HostKindMetadata } from '../platform/host-kinds.js';

export const MAX_LABEL_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 4000;

// Control characters would garble listings and the agent's view of the network.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/** A label or description. Throws `invalid_argument` naming the field. */
export function checkText(value: unknown, field: 'label' | 'description', options: { readonly allowEmpty: boolean }): string {
  const max = field === 'label' ? MAX_LABEL_LENGTH : MAX_DESCRIPTION_LENGTH;
  const lineBreaks = field === 'description';
  if (typeof value !== 'string' || (!options.allowEmpty && value.trim() === '') || value.length > max || CONTROL.test(value) || (!lineBreaks && /[\n\t]/.test(value))) {
    throw new InvalidArgumentError(
      `The host ${field} must be ${options.allowEmpty ? 'a' : 'a non-empty'} string of at most ${max} characters${lineBreaks ? '' : ' on one line'}, without control characters.`,
      { details: { argument: field } },
    );
  }
  return value;
}

/**
 * The ownership scope and owner id. Throws `invalid_argument` when the kind does not allow the
 * scope, or when a user or agent host has no owner id (or a network-owned one has one).
 */
export function checkOwnership(
  ownership: OwnershipScope | undefined,
  ownerId: string | undefined,
  kind: HostKindMetadata,
): { readonly ownership: OwnershipScope; readonly ownerId: string | null } {
  const scope = ownership ?? kind.defaultOwnership;
  if (!kind.allowedOwnership.includes(scope)) {
    throw new InvalidArgumentError(`Hosts of kind "${kind.kind}" can be owned by ${kind.allowedOwnership.map((s) => `"${s}"`).join(', ')}, not "${String(scope)}".`, {
      details: { argument: 'ownership', allowed: kind.allowedOwnership },
    });
  }
  if (scope === 'project') {
    if (ownerId !== undefined) throw new InvalidArgumentError('A host owned by the whole network (ownership "project") takes no owner id.', { details: { argument: 'ownerId' } });
    return { ownership: scope, ownerId: null };
  }
  if (typeof ownerId !== 'string' || ownerId === '' || ownerId.length > 256 || CONTROL.test(ownerId)) {
    throw new InvalidArgumentError(`A host owned by one ${scope} needs the ${scope}'s id as its owner id.`, { details: { argument: 'ownerId' } });
  }
  return { ownership: scope, ownerId };
}

const SYNC_KEYS = ['trigger', 'interval', 'exclude', 'alwaysActive'];

/**
 * Sync settings, by the manifest's rules: `trigger` auto or manual, `interval` a positive ISO
 * 8601 duration (auto only), `exclude` globs relative to the root (no leading `/`, no `..`),
 * `alwaysActive` a boolean. Throws `invalid_config` naming the field (`details.fields`).
 */
export function checkSyncSettings(value: unknown): SourceSyncSettings {
  const refuse = (field: string, problem: string): never => {
    throw new InvalidConfigError(`Invalid sync settings: field "${field}" ${problem}.`, { details: { fields: [field] } });
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return refuse('sync', 'must be an object { "trigger": "auto" | "manual", "interval"?, "exclude"?, "alwaysActive"? }');
  }
  const sync = value as Record<string, unknown>;
  for (const name of Object.keys(sync)) if (!SYNC_KEYS.includes(name)) refuse(`sync.${name}`, `is not a sync setting (expected ${SYNC_KEYS.join(', ')})`);
  const trigger = sync['trigger'];
  if (trigger !== 'auto' && trigger !== 'manual') refuse('sync.trigger', 'must be "auto" or "manual"');
  const interval = sync['interval'];
  if (interval !== undefined) {
    if (typeof interval !== 'string' || !isPositiveIsoDuration(interval)) refuse('sync.interval', 'must be an ISO 8601 duration longer than zero, such as "PT15M"');
    if (trigger === 'manual') refuse('sync.interval', 'schedules syncs, which contradicts trigger "manual"');
  }
  const exclude = sync['exclude'];
  if (exclude !== undefined) {
    if (!Array.isArray(exclude)) refuse('sync.exclude', 'must be a list of globs');
    (exclude as unknown[]).forEach((glob, index) => {
      if (typeof glob !== 'string' || glob === '' || glob.startsWith('/') || glob.includes('\0') || glob.split('/').includes('..')) {
        refuse(`sync.exclude[${index}]`, 'must be a glob relative to the host root (no leading "/", no ".." segment)');
      }
    });
    try {
      excludeMatcher(exclude as string[]);
    } catch (error) {
      refuse('sync.exclude', `is not valid: ${(error as Error).message}`);
    }
  }
  const alwaysActive = sync['alwaysActive'];
  if (alwaysActive !== undefined && typeof alwaysActive !== 'boolean') refuse('sync.alwaysActive', 'must be true or false');
  return Object.freeze({
    trigger: trigger as 'auto' | 'manual',
    ...(interval === undefined ? {} : { interval: interval as string }),
    ...(exclude === undefined ? {} : { exclude: Object.freeze([...(exclude as string[])]) }),
    ...(alwaysActive === undefined ? {} : { alwaysActive: alwaysActive as boolean }),
  });
}

/**
 * The sync settings of a host nobody gave any: `auto` when its kind can watch it or lists it for
 * free (a folder, a local bucket), so new files appear by themselves; `manual` when every listing
 * is metered (a remote bucket, a SaaS API), so nothing spends a person's quota unasked.
 */
export function defaultSync(description: Pick<Description, 'capabilities' | 'listing'>): SourceSyncSettings {
  return Object.freeze({ trigger: description.capabilities.includes('watch') || description.listing === 'free' ? 'auto' : 'manual' });
}

/** Private-origin approvals: distinct strings. Whether each is a declared origin is the gate's check. */
export function checkPrivateOrigins(value: unknown): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === '')) {
    throw new InvalidArgumentError('privateOrigins must be a list of origins such as "http://192.168.1.20:9000".', { details: { argument: 'privateOrigins' } });
  }
  return [...new Set(value as string[])];
}
