/**
 * `sources[]`: concrete sources of an (already or later) registered kind, seeded into every new
 * project (`seed: "auto"`) or offered for on-demand add (`seed: "discoverable"`). Whether the kind
 * exists is a runtime check when the source is created, never checked here.
 *
 * The trust gate is deny-by-default: `seed: "auto"` needs trusted or first-party trust (no human
 * in the loop), `${appRoot}` needs first-party trust, and untrusted or sandboxed packages may only
 * declare discoverable sources with a project-relative root (`data` or `_packages`, so not
 * rootless either).
 */
import { ManifestValidationError, type ManifestIssue } from '../contracts/errors.js';
import { ROOT_TOKENS, type PackageTrust, type RootToken } from '../contracts/manifest.js';
import { OWNERSHIP_SCOPES } from '../contracts/session.js';
import {
  FEATURE_ID_RULE,
  SLUG_RULE,
  SOURCE_SLUG_RULE,
  checkArray,
  checkBoolean,
  checkEnum,
  checkKnownKeys,
  checkObject,
  checkSlug,
  checkStringList,
  checkText,
} from './fields.js';
import { IssueCollector, at, named } from './issues.js';
import { checkJsonValue, has, isPlainObject, own, type JsonObject } from './json.js';
import { checkPermissionTree } from './permissions.js';
import { assertPackageTrust, isTrustedOrFirstParty } from './trust.js';

export const SOURCE_DECLARATION_KEYS = ['source', 'label', 'kind', 'root', 'scope', 'description', 'sync', 'permissions', 'seed', 'visibility'] as const;

export const ROOT_ACCEPTED =
  'a root token ("data", "_packages" or "${appRoot}"), optionally followed by a relative sub-path such as "data/reports" ' +
  '(no absolute path, no "..", "." or empty segment, no other ${…} token); omit root for rootless kinds';

/** A parsed source root: its token and the sub-path segments after it. */
export interface SourceRoot {
  readonly token: RootToken;
  readonly segments: readonly string[];
}

/** The root, or why it is refused. Order matters: an absolute or `..` path is named as such, not as "unknown token". */
function readRoot(root: string): SourceRoot | string {
  if (root === '') return 'The root is empty.';
  if (root.includes('\0')) return 'The root contains a NUL byte.';
  if (root.startsWith('/') || root.startsWith('\\') || /^[A-Za-z]:/.test(root) || root.startsWith('~')) return 'The root is an absolute OS path.';
  if (root.includes('\\')) return 'The root uses "\\"; roots are "/"-separated.';
  const [head = '', ...segments] = root.split('/');
  if ([head, ...segments].includes('..')) return 'The root contains a ".." segment.';
  if (!(ROOT_TOKENS as readonly string[]).includes(head)) {
    return head.includes('${') ? 'The root starts with an unknown ${…} token.' : 'The root does not start with a root token.';
  }
  for (const segment of segments) {
    if (segment === '' || segment === '.') return 'The root contains an empty or "." segment.';
    if (segment.includes('${')) return 'A ${…} token may only start the root.';
  }
  return { token: head as RootToken, segments };
}

/**
 * Parses a declared root for the code that resolves it. Throws `ManifestValidationError`
 * (`manifest_invalid`, issue path `root`) for anything outside the allow-list: absolute OS paths,
 * `..` segments, unknown `${…}` tokens, empty or `.` segments.
 */
export function parseSourceRoot(root: string): SourceRoot {
  const result = typeof root === 'string' ? readRoot(root) : 'The root must be a string.';
  if (typeof result === 'string') throw new ManifestValidationError([{ path: 'root', message: result, expected: ROOT_ACCEPTED }]);
  return result;
}

export interface SourceDeclarationOptions {
  readonly trust: PackageTrust;
  /** Path of the `sources` array in issues; default `sources`. */
  readonly path?: string;
}

/**
 * Every issue with a `sources[]` array at the given trust, including duplicate `source` slugs.
 * Never throws for bad declarations; throws `InvalidArgumentError` (`invalid_argument`) only for an
 * unknown `options.trust`.
 */
export function validateSourceDeclarations(sources: unknown, options: SourceDeclarationOptions): ManifestIssue[] {
  assertPackageTrust(options.trust);
  const issues = new IssueCollector();
  const path = options.path ?? 'sources';
  checkJsonValue(sources, path, issues);
  if (issues.size === 0) checkSources(sources, path, options.trust, issues);
  return issues.list();
}

export function checkSources(value: unknown, path: string, trust: PackageTrust, issues: IssueCollector): void {
  const list = checkArray(value, path, issues, 'an array of source declarations');
  if (list === undefined) return;
  const firstBySlug = new Map<string, number>();
  list.forEach((item, index) => {
    const itemPath = at(path, index);
    checkSource(item, itemPath, trust, issues);
    const slug = isPlainObject(item) ? own(item, 'source') : undefined;
    if (typeof slug !== 'string') return;
    const first = firstBySlug.get(slug);
    if (first === undefined) firstBySlug.set(slug, index);
    else issues.add(at(itemPath, 'source'), `The source slug${named(slug)} is already declared by ${at(path, first)}.`, 'a source slug unique within the manifest');
  });
}

function checkSource(value: unknown, path: string, trust: PackageTrust, issues: IssueCollector): void {
  const source = checkObject(value, path, issues, 'a source declaration object');
  if (source === undefined) return;
  checkKnownKeys(source, SOURCE_DECLARATION_KEYS, path, issues, 'A source declaration');
  checkSlug(source, 'source', path, issues, SOURCE_SLUG_RULE);
  checkText(source, 'label', path, issues, { required: true });
  checkSlug(source, 'kind', path, issues, SLUG_RULE);
  checkEnum(source, 'scope', path, issues, OWNERSHIP_SCOPES, { required: true });
  checkText(source, 'description', path, issues, { required: true }, 'a non-empty description; it is rendered into the agent\'s runtime-stack block so the model knows what the source is');
  const seed = checkEnum(source, 'seed', path, issues, ['auto', 'discoverable'], { required: true });
  const root = checkRootField(source, path, issues);
  if (has(source, 'sync')) checkSync(own(source, 'sync'), at(path, 'sync'), issues);
  if (has(source, 'permissions')) checkPermissionTree(own(source, 'permissions'), at(path, 'permissions'), issues);
  if (has(source, 'visibility')) checkVisibility(own(source, 'visibility'), at(path, 'visibility'), issues);
  checkSourceTrust(source, path, trust, seed, root, issues);
}

/** The parsed root, `null` when omitted (rootless), undefined when bad (already reported). */
function checkRootField(source: JsonObject, path: string, issues: IssueCollector): SourceRoot | null | undefined {
  if (!has(source, 'root')) return null;
  const value = own(source, 'root');
  const result = typeof value === 'string' ? readRoot(value) : 'The root must be a string.';
  if (typeof result === 'string') {
    issues.add(at(path, 'root'), result, ROOT_ACCEPTED);
    return undefined;
  }
  return result;
}

function checkSourceTrust(source: JsonObject, path: string, trust: PackageTrust, seed: string | undefined, root: SourceRoot | null | undefined, issues: IssueCollector): void {
  const trusted = isTrustedOrFirstParty(trust);
  if (seed === 'auto' && !trusted) {
    issues.add(
      at(path, 'seed'),
      `seed "auto" seeds the source into every project with no human in the loop; a package with trust "${trust}" may not do that.`,
      '"discoverable" (seed "auto" needs a trusted or first-party package)',
    );
  }
  if (root?.token === '${appRoot}' && trust !== 'first-party') {
    issues.add(at(path, 'root'), `The platform root token \${appRoot} needs a first-party package; this package is ${trust}.`, 'a project-relative root: "data" or "_packages", optionally followed by a sub-path');
  }
  if (root === null && !trusted) {
    issues.add(
      at(path, 'root'),
      `A package with trust "${trust}" may only declare sources with a project-relative root; this source is rootless.`,
      'a project-relative root: "data" or "_packages", optionally followed by a sub-path',
    );
  }
}

/** ISO 8601 duration; fractions only on seconds, weeks may combine with other units. */
const ISO_DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/** True for a well-formed ISO 8601 duration longer than zero. */
export function isPositiveIsoDuration(value: string): boolean {
  const match = ISO_DURATION.exec(value);
  if (match === null || value === 'P' || value.endsWith('T')) return false;
  return match.slice(1).some((part) => part !== undefined && Number(part) > 0);
}

const GLOB_RULE = {
  pattern: /^(?!\/)(?!.*(?:^|\/)\.\.(?:\/|$))[^\0]+$/,
  accepted: 'a glob relative to the source root, e.g. "_pending/**" (no leading "/", no ".." segment)',
};

function checkSync(value: unknown, path: string, issues: IssueCollector): void {
  const sync = checkObject(value, path, issues, '{ "trigger": "auto" | "manual", "interval"?: ISO 8601 duration, "exclude"?: [globs], "alwaysActive"?: boolean }');
  if (sync === undefined) return;
  checkKnownKeys(sync, ['trigger', 'interval', 'exclude', 'alwaysActive'], path, issues, 'The sync settings');
  const trigger = checkEnum(sync, 'trigger', path, issues, ['auto', 'manual'], { required: true });
  if (has(sync, 'interval')) {
    const interval = own(sync, 'interval');
    const intervalPath = at(path, 'interval');
    if (typeof interval !== 'string' || !isPositiveIsoDuration(interval)) {
      issues.add(intervalPath, 'The interval is not an ISO 8601 duration longer than zero.', 'an ISO 8601 duration such as "PT15M", "PT1H" or "P1D"');
    } else if (trigger === 'manual') {
      issues.add(intervalPath, 'An interval schedules syncs, which contradicts trigger "manual".', 'no interval with trigger "manual", or trigger "auto"');
    }
  }
  if (has(sync, 'exclude')) {
    checkStringList(own(sync, 'exclude'), at(path, 'exclude'), issues, { nonEmpty: false, unique: false, item: GLOB_RULE, expected: 'a list of globs relative to the source root' });
  }
  checkBoolean(sync, 'alwaysActive', path, issues);
}

function checkVisibility(value: unknown, path: string, issues: IssueCollector): void {
  const visibility = checkObject(value, path, issues, '{ "seeRequires"?: [feature ids] }');
  if (visibility === undefined) return;
  checkKnownKeys(visibility, ['seeRequires'], path, issues, 'The visibility settings');
  if (has(visibility, 'seeRequires')) {
    checkStringList(own(visibility, 'seeRequires'), at(path, 'seeRequires'), issues, {
      nonEmpty: false,
      unique: true,
      item: FEATURE_ID_RULE,
      expected: 'a list of distinct feature ids, e.g. ["sources.notion"]',
    });
  }
}
