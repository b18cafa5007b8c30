/**
 * Rules that need a grant of several rights (a move deletes at its source and writes at its
 * target): an agent passes only holding a grant of each, and the refusal names what is missing.
 * The walk over every route and tool is http/authorization.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ACTIONS, allows, refusal, type GrantRight } from './authorization.js';

const agent = (...rights: GrantRight[]) => ({ features: new Set<string>(), agentId: 'bot', grants: rights.map((right) => ({ right })) });

describe('a rule of several grants', () => {
  it('lets an agent through only with a grant of each right, and a person always', () => {
    const move = ACTIONS['fs.move'];
    expect(allows(move, agent('delete', 'write'))).toBe(true);
    expect(allows(move, agent('write', 'exec', 'delete'))).toBe(true);
    expect(allows(move, agent('delete'))).toBe(false);
    expect(allows(move, agent('write'))).toBe(false);
    expect(allows(move, agent())).toBe(false);
    expect(allows(move, { features: new Set<string>() })).toBe(true);
  });

  it('names every right missing, the first in `right`', () => {
    expect(refusal(ACTIONS['fs.move'], agent('delete'), 'x')).toMatchObject({ code: 'permission_denied', details: { reason: 'no_grant', right: 'write' } });
    const none = refusal(ACTIONS['fs.move'], agent(), 'The tool "move"');
    expect(none?.details).toEqual({ reason: 'no_grant', right: 'delete', rights: ['delete', 'write'] });
    expect(none?.message).toBe('The tool "move" needs a "delete" grant and a "write" grant on this agent\'s token; a person makes them with `inseam token create --agent … --grant delete,write:<address>`.');
    // One right, as before: no list.
    expect(refusal(ACTIONS['fs.write'], agent('delete'), 'x')?.details).toEqual({ reason: 'no_grant', right: 'write' });
  });

  it('gives copy and mkdir the rule of a write', () => {
    expect(ACTIONS['fs.copy']).toEqual(ACTIONS['fs.write']);
    expect(ACTIONS['fs.mkdir']).toEqual(ACTIONS['fs.write']);
  });
});
