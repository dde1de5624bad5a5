import { describe, expect, it } from 'vitest';
import { staleMessage, type StaleItem } from '../../src/apply/stale.js';

const item = (i: number): StaleItem => ({ key: `case:${i}`, message: `case DEMO-${i} changed on the service` });

describe('staleMessage', () => {
  it('puts one reason per line under a heading that counts them', () => {
    expect(staleMessage([item(1), { key: 'repository', message: 'the repository changed since the plan was saved' }])).toBe(
      'the saved plan is stale (2 reasons):\n  - case DEMO-1 changed on the service\n  - the repository changed since the plan was saved',
    );
    expect(staleMessage([item(7)])).toBe('the saved plan is stale (1 reason):\n  - case DEMO-7 changed on the service');
  });

  it('lists at most `limit` reasons and counts the rest', () => {
    const lines = staleMessage(Array.from({ length: 25 }, (_, i) => item(i)), 20).split('\n');
    expect(lines).toHaveLength(22);
    expect(lines[20]).toBe('  - case DEMO-19 changed on the service');
    expect(lines[21]).toBe('  - … and 5 more (all of them under details.changed with --json)');
  });
});
