import { describe, expect, it } from 'vitest';
import { parseSelection } from '../../src/runs/test-run.js';

describe('test-run create --cases', () => {
  it('reads all (also when not given or empty), label:NAME and a folder path with its slashes trimmed', () => {
    expect(parseSelection(undefined)).toEqual({ kind: 'all' });
    expect(parseSelection(' ALL ')).toEqual({ kind: 'all' });
    expect(parseSelection('/')).toEqual({ kind: 'all' });
    expect(parseSelection('label: smoke')).toEqual({ kind: 'label', name: 'smoke' });
    expect(parseSelection('Label:Release 2.4')).toEqual({ kind: 'label', name: 'Release 2.4' });
    expect(parseSelection('/Checkout / Payment/')).toEqual({ kind: 'folder', path: ['Checkout', 'Payment'] });
  });

  it('refuses label: without a name, saying what to write', () => {
    expect(() => parseSelection('label:')).toThrow(expect.objectContaining({ code: 'invalid_arguments', hint: 'write --cases label:smoke' }));
  });
});
