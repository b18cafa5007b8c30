import { describe, expect, it } from 'vitest';
import { OriginBudget } from './budget.js';

describe('per-origin budget', () => {
  it('holds each origin to its slots and serves waiters first come, first served', async () => {
    const budget = new OriginBudget(2);
    const a = await budget.acquire('https://a.example');
    const b = await budget.acquire('https://a.example');
    const other = await budget.acquire('https://b.example');
    const order: string[] = [];
    const third = budget.acquire('https://a.example').then((release) => {
      order.push('third');
      return release;
    });
    const fourth = budget.acquire('https://a.example').then((release) => {
      order.push('fourth');
      return release;
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(order).toEqual([]);
    expect(budget.active('https://a.example')).toBe(2);
    a();
    a();
    (await third)();
    b();
    (await fourth)();
    other();
    expect(order).toEqual(['third', 'fourth']);
    expect(budget.active('https://a.example')).toBe(0);
  });

  it('drops an aborted waiter from the queue', async () => {
    const budget = new OriginBudget(1);
    const held = await budget.acquire('o');
    const controller = new AbortController();
    const waiting = budget.acquire('o', controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    held();
    const again = await budget.acquire('o');
    expect(budget.active('o')).toBe(1);
    again();
  });

  it('rejects a budget that is not a positive integer', () => {
    expect(() => new OriginBudget(0)).toThrow(RangeError);
  });
});
