/**
 * Check 11: the connector used only its declared origins, and the gate refused nothing — a
 * refusal names the request by method, origin, why, and (for a secret or a method override)
 * which part of it: `url`, `body` or `header <name>`, never the value.
 */
import { listProblems, skip } from '@neuralis/package-system/testing';
import type { TrialContext } from '../context.js';
import { DOC_SECTIONS, failAt, type DocSection } from '../docs.js';
import type { TrialRefusal } from '../types.js';

const REASON_TEXT: Readonly<Record<string, string>> = {
  origin_not_declared: 'the origin is not in auth.origins',
  address_forbidden: 'it resolves to a private or special address a person did not approve',
  write_in_audit_mode: 'a write outside the trial\'s own write calls',
  method_forbidden: 'TRACE, TRACK and CONNECT are never sent',
  too_many_redirects: 'too many redirects',
  secret_in_url: 'a redirect would have carried the credential elsewhere',
  secret_in_request: 'it carried the host\'s credential',
  method_override_in_audit_mode: 'a read carrying a method override',
  unrequested_content_encoding: 'the answer came in a content coding the gate did not ask for',
  decompression_limit: 'the coded answer decoded past the gate\'s limit (a decompression bomb)',
};

function refusalText(refusal: TrialRefusal): string {
  const where = refusal.part === undefined ? '' : ` (in its ${refusal.part})`;
  return `${refusal.method} to ${refusal.origin || 'an unparseable URL'}: ${REASON_TEXT[refusal.reason] ?? refusal.reason}${where}`;
}

function fixFor(refusals: readonly TrialRefusal[]): string {
  const fixes = new Set<string>();
  for (const refusal of refusals) {
    if (refusal.reason === 'origin_not_declared') fixes.add(`declare ${refusal.origin} in auth.origins if the connector needs it, or stop calling it`);
    else if (refusal.reason === 'write_in_audit_mode') {
      fixes.add('send writes (POST, PUT, PATCH, DELETE, MKCOL, MOVE…) only from write() and delete(); list, stat, read and watch may only read');
      if (refusal.method === 'POST') fixes.add('a POST that only reads (GraphQL, a search API) is declared in auth.readEndpoints as { method: "POST", origin, path }');
    }
    else if (refusal.reason === 'address_forbidden') fixes.add(`use the host's public address, or have a person approve ${refusal.origin} as private (allowPrivateOrigins)`);
    else if (refusal.reason === 'secret_in_request') fixes.add('never put a credential (or anything made from one) into a request: the gate attaches it where auth.present says');
    else if (refusal.reason === 'method_override_in_audit_mode') fixes.add('send no X-HTTP-Method-Override, X-Method-Override or X-HTTP-Method header and no _method parameter from list, stat, read or watch');
    else if (refusal.reason === 'unrequested_content_encoding' || refusal.reason === 'decompression_limit') fixes.add(`check what ${refusal.origin} answers: the gate asks for gzip, deflate or br (identity for HEAD and ranges) and decodes it itself`);
    else fixes.add('send each request straight to a declared origin, with GET, HEAD, OPTIONS, PROPFIND, REPORT or SEARCH for reads');
  }
  return [...fixes].join('; ');
}

/** The reference section for the first refusal: origins, audit mode, or gate refusals in general. */
function sectionFor(refusal: TrialRefusal): DocSection {
  if (refusal.reason === 'origin_not_declared' || refusal.reason === 'address_forbidden') return DOC_SECTIONS.origins;
  if (refusal.reason === 'write_in_audit_mode' || refusal.reason === 'method_override_in_audit_mode') return DOC_SECTIONS.auditMode;
  return DOC_SECTIONS.gateRefusals;
}

/** Check 11. */
export function checkOrigins(context: TrialContext): string {
  const egress = context.egress;
  if (egress === undefined) skip('the connector runs in-process, not behind the egress gate, so its origins are not recorded');
  const refusals = egress.refusals();
  if (refusals.length > 0) {
    const unique = [...new Map(refusals.map((refusal) => [`${refusal.method} ${refusal.origin} ${refusal.reason} ${refusal.part ?? ''}`, refusal])).values()];
    failAt(
      sectionFor(unique[0]!),
      'every request goes to a declared origin and carries no credential but the one the gate attaches, and only the trial\'s own writes write',
      `the gate refused ${listProblems(unique.map(refusalText))}`,
      fixFor(unique),
    );
  }
  if (context.description === undefined) skip('the module did not load, so it sent nothing (see check 1)');
  const used = egress.originsUsed();
  const declared = context.description.auth.origins.join(', ');
  return used.length === 0 ? `no request was sent (declared: ${declared})` : `used ${used.join(', ')} (declared: ${declared})`;
}
