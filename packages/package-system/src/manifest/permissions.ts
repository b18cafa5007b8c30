/**
 * Permission trees (`defaultPermissions` of a source connector, `permissions` of a source):
 * `{ default: { read, write, exec }, paths?: { "<relative/path>": { read?, write?, exec? } } }`.
 * All three default rights are required: a missing right would otherwise be read as a silent deny
 * or, worse, a silent allow, depending on the reader.
 */
import { checkBoolean, checkKnownKeys, checkObject } from './fields.js';
import { IssueCollector, at } from './issues.js';
import { own } from './json.js';

const RIGHTS = ['read', 'write', 'exec'] as const;

export const PERMISSION_TREE_ACCEPTED =
  '{ "default": { "read": boolean, "write": boolean, "exec": boolean }, "paths"?: { "<source-relative path>": { "read"?: boolean, "write"?: boolean, "exec"?: boolean } } }';

const PATH_KEY_ACCEPTED = 'a source-relative path: "/"-separated segments, no leading "/", no empty, "." or ".." segment, no NUL';

export function checkPermissionTree(value: unknown, path: string, issues: IssueCollector): void {
  const tree = checkObject(value, path, issues, PERMISSION_TREE_ACCEPTED);
  if (tree === undefined) return;
  checkKnownKeys(tree, ['default', 'paths'], path, issues, 'A permission tree');

  const defaultPath = at(path, 'default');
  if (own(tree, 'default') === undefined) {
    issues.add(defaultPath, 'The field "default" is required.', '{ "read": boolean, "write": boolean, "exec": boolean }');
  } else {
    const rights = checkObject(own(tree, 'default'), defaultPath, issues, '{ "read": boolean, "write": boolean, "exec": boolean }');
    if (rights !== undefined) {
      checkKnownKeys(rights, RIGHTS, defaultPath, issues, 'The default rights');
      for (const right of RIGHTS) checkBoolean(rights, right, defaultPath, issues, { required: true });
    }
  }

  const pathsValue = own(tree, 'paths');
  if (pathsValue === undefined) return;
  const pathsPath = at(path, 'paths');
  const overrides = checkObject(pathsValue, pathsPath, issues, '{ "<source-relative path>": { "read"?: boolean, "write"?: boolean, "exec"?: boolean } }');
  if (overrides === undefined) return;
  for (const key of Object.keys(overrides)) {
    const overridePath = at(pathsPath, key);
    if (!isRelativeSourcePath(key)) issues.add(overridePath, 'The override key is not a canonical source-relative path.', PATH_KEY_ACCEPTED);
    const rights = checkObject(own(overrides, key), overridePath, issues, '{ "read"?: boolean, "write"?: boolean, "exec"?: boolean } with at least one right');
    if (rights === undefined) continue;
    checkKnownKeys(rights, RIGHTS, overridePath, issues, 'A path override');
    if (Object.keys(rights).length === 0) issues.add(overridePath, 'The override sets no right.', 'at least one of "read", "write" or "exec"');
    for (const right of RIGHTS) checkBoolean(rights, right, overridePath, issues);
  }
}

function isRelativeSourcePath(key: string): boolean {
  if (key === '' || key.includes('\0')) return false;
  return key.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}
