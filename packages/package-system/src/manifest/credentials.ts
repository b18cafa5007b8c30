/**
 * `credentials[]`: the one place a package declares secrets. Connectors read them at run time
 * through the CredentialResolver injected into `init(ctx)`; nothing secret lives in configSchema.
 */
import type { ManifestIssue } from '../contracts/errors.js';
import { CREDENTIAL_FIELD_RULE, CREDENTIAL_ID_RULE, checkArray, checkBoolean, checkKnownKeys, checkObject, checkSlug, checkText } from './fields.js';
import { IssueCollector, at, named } from './issues.js';
import { checkJsonValue, has, own } from './json.js';

export const CREDENTIAL_KEYS = ['id', 'label', 'description', 'fields'] as const;
const FIELD_KEYS = ['name', 'label', 'secret'] as const;

/**
 * Every issue with a `credentials[]` array: each entry `{ id, label, description?, fields? }` with
 * ids unique in the manifest, and `fields` (when present) a non-empty list of
 * `{ name, label, secret }` with names unique in the credential. Never throws.
 */
export function validateCredentialDeclarations(credentials: unknown, path = 'credentials'): ManifestIssue[] {
  const issues = new IssueCollector();
  checkJsonValue(credentials, path, issues);
  if (issues.size === 0) checkCredentials(credentials, path, issues);
  return issues.list();
}

export function checkCredentials(value: unknown, path: string, issues: IssueCollector): void {
  const list = checkArray(value, path, issues, 'an array of credential declarations');
  if (list === undefined) return;
  const firstById = new Map<string, number>();
  list.forEach((item, index) => {
    const itemPath = at(path, index);
    const credential = checkObject(item, itemPath, issues, '{ "id": string, "label": string, "description"?: string, "fields"?: [{ "name", "label", "secret" }] }');
    if (credential === undefined) return;
    checkKnownKeys(credential, CREDENTIAL_KEYS, itemPath, issues, 'A credential declaration');
    const id = checkSlug(credential, 'id', itemPath, issues, CREDENTIAL_ID_RULE);
    if (id !== undefined) {
      const first = firstById.get(id);
      if (first === undefined) firstById.set(id, index);
      else issues.add(at(itemPath, 'id'), `The credential id${named(id)} is already declared by ${at(path, first)}.`, 'a credential id unique within the manifest');
    }
    checkText(credential, 'label', itemPath, issues, { required: true });
    checkText(credential, 'description', itemPath, issues, { required: false });
    if (has(credential, 'fields')) checkFields(own(credential, 'fields'), at(itemPath, 'fields'), issues);
  });
}

function checkFields(value: unknown, path: string, issues: IssueCollector): void {
  const accepted = 'a non-empty list of { "name", "label", "secret" }; omit "fields" for one secret field named "value"';
  const fields = checkArray(value, path, issues, accepted);
  if (fields === undefined) return;
  if (fields.length === 0) issues.add(path, 'The credential declares an empty field list.', accepted);
  const seen = new Set<string>();
  fields.forEach((item, index) => {
    const fieldPath = at(path, index);
    const field = checkObject(item, fieldPath, issues, '{ "name": string, "label": string, "secret": boolean }');
    if (field === undefined) return;
    checkKnownKeys(field, FIELD_KEYS, fieldPath, issues, 'A credential field');
    const name = checkSlug(field, 'name', fieldPath, issues, CREDENTIAL_FIELD_RULE);
    if (name !== undefined) {
      if (seen.has(name)) issues.add(at(fieldPath, 'name'), `The field name${named(name)} is used twice in this credential.`, 'field names unique within the credential');
      seen.add(name);
    }
    checkText(field, 'label', fieldPath, issues, { required: true });
    checkBoolean(field, 'secret', fieldPath, issues, { required: true });
  });
}
