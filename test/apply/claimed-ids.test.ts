import { describe, expect, it } from 'vitest';
import { claimedRemoteIds } from '../../src/apply/finders.js';
import { actualState, desiredCase, desiredFolder, desiredState, remoteCase, remoteFolder } from '../plan/builders.js';

describe('claimedRemoteIds', () => {
  it('turns the human ids and ids written in files into remote ids, and ignores ids the service lacks', () => {
    const actual = actualState({
      folders: [remoteFolder('f-a', 'A')],
      cases: [remoteCase('DEMO-7', 'X', 'f-a'), remoteCase('DEMO-8', 'Y', 'f-a')],
    });
    const desired = desiredState({
      folders: [desiredFolder('A', { id: 'f-a' })],
      cases: [desiredCase('A', 'X', {}, { id: 'demo-7' }), desiredCase('A', 'Y'), desiredCase('A', 'Z', {}, { id: 'DEMO-99' })],
    });
    expect(claimedRemoteIds(desired, actual).sort()).toEqual(['case-DEMO-7', 'f-a']);
  });
});
