import { describe, expect, it } from 'vitest';
import { buildPullFiles } from '../../src/pull/pull-files.js';
import { fixtureState } from '../support/transfer-fixtures.js';

describe('buildPullFiles with lazyContent', () => {
  it('renders each file when its content is first read, to the same text as the eager layout', () => {
    const options = { casesDir: 'cases', stepGroupsDir: 'step_groups' };
    const eager = buildPullFiles(fixtureState(), options);
    const lazy = buildPullFiles(fixtureState(), { ...options, lazyContent: true });
    expect(lazy.files.map((f) => f.path)).toEqual(eager.files.map((f) => f.path));
    expect(lazy.files.map((f) => f.content)).toEqual(eager.files.map((f) => f.content));
    expect(lazy.files.length).toBeGreaterThan(3);
  });
});
