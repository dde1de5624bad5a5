import { describe, expect, it } from 'vitest';
import { attachmentsInOutput } from '../../src/results/output-attachments.js';

describe('attachmentsInOutput', () => {
  it('finds [[ATTACHMENT|path]] lines and file:// URLs once each, in order', () => {
    const out = 'step 1\r\n[[ATTACHMENT|screens/login failed.png]]\r\nsee file:///tmp/trace.zip)\n[[ATTACHMENT|screens/login failed.png]]\n';
    expect(attachmentsInOutput(out)).toEqual([{ path: 'screens/login failed.png' }, { path: 'file:///tmp/trace.zip' }]);
  });

  it('finds nothing in plain output', () => {
    expect(attachmentsInOutput('all good [[ATTACHMENT|]] [ATTACHMENT|x]')).toEqual([]);
  });
});
