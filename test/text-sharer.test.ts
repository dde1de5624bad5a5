import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DesiredStep, RemoteCase } from '../src/model.js';
import { repositoryTexts } from '../src/text-sharer.js';
import { desiredCase, desiredState, remoteCase } from './plan/builders.js';

const step = (action: string, expected: string): DesiredStep => ({ kind: 'step', action, expected });

describe("a project's cases keep the repository's strings for equal texts (issue 15)", () => {
  it('never changes a text of a case read, whatever the file holds (property)', () => {
    const text = fc.oneof(fc.constantFrom('', 'Opens the checkout page', 'Opens the checkout page\n', 'Opens'), fc.string({ maxLength: 30 }));
    fc.assert(
      fc.property(text, text, text, text, text, text, fc.boolean(), (fileTitle, fileDescription, fileAction, title, description, action, byHumanId) => {
        const desired = desiredState({
          cases: [desiredCase('Auth', fileTitle, { description: fileDescription, steps: [step(fileAction, fileAction), { kind: 'use', use: 'login' }] }, { id: byHumanId ? 'shop-1' : 'case-SHOP-1' })],
        });
        const read: RemoteCase = {
          ...remoteCase('SHOP-1', title, 'f-auth', { description }),
          individualSteps: [
            { description: 'group step', expected: 'shown', order: 1, stepGroupId: 'g-1' },
            { description: action, expected: action, order: 2, stepGroupId: null },
          ],
        };
        const before = structuredClone(read);
        repositoryTexts(desired)(read);
        expect(read).toStrictEqual(before);
      }),
    );
  });

  it('leaves a case no file names by id as it was read', () => {
    const read = remoteCase('SHOP-9', 'Other', 'f-auth', { description: 'x' });
    const before = structuredClone(read);
    repositoryTexts(desiredState({ cases: [desiredCase('Auth', 'Other', { description: 'x' })] }))(read);
    expect(read).toStrictEqual(before);
  });
});
