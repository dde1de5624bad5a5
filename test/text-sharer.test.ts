import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DesiredStep, RemoteCase } from '../src/model.js';
import { isWide, narrowTexts, repositoryTexts } from '../src/text-sharer.js';
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

describe('texts narrowed to one byte per character where they can be (issue 15)', () => {
  it('gives back the same value, objects and arrays in place, every text equal (property)', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('café ✓', 'naïve', ''));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.constant(null), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(fc.string(), tie('node'), { maxKeys: 4, noNullPrototype: true })),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const before = structuredClone(v);
        const after = narrowTexts(v);
        expect(after).toStrictEqual(before);
        if (typeof v === 'object' && v !== null) expect(after).toBe(v);
      }),
    );
  });

  it('tells a text past Latin-1 from one within it', () => {
    expect([isWide('café'), isWide('naïve ÿ'), isWide('✓'), isWide('a\u0100')]).toEqual([false, false, true, true]);
  });
});
