import type { ActualState, DesiredState } from '../../src/model.js';
import {
  actualState,
  desiredCase,
  desiredFolder,
  desiredGroup,
  desiredState,
  remoteCase,
  remoteFolder,
  remoteGroup,
  remoteSteps,
  step,
  use,
} from './builders.js';

/** One repository and service whose plan holds every kind of operation, for the renderer goldens. */
export function everyKindScenario(): { desired: DesiredState; actual: ActualState } {
  const login: [string, string][] = [
    ['Open /login', 'The login form shows'],
    ['Sign in as admin', 'The dashboard shows'],
  ];
  const actual = actualState({
    folders: [
      remoteFolder('f-auth', 'Authentication', null, 0),
      remoteFolder('f-checkout', 'Checkout', null, 1),
      remoteFolder('f-pay', 'Payments', 'f-auth', 0),
      remoteFolder('f-legacy', 'Legacy', null, 2),
      remoteFolder('f-misc', 'Misc', null, 3),
    ],
    stepGroups: [remoteGroup('SHOP-SG-1', 'Log in as admin', login), remoteGroup('SHOP-SG-2', 'Old helper', [['x', 'y']])],
    cases: [
      remoteCase('SHOP-1', 'Valid login', 'f-auth', {
        description: 'Signs in with a valid password.\nChecks the greeting.\nChecks the menu.',
        statusId: 'status-draft',
      }),
      remoteCase('SHOP-2', 'Locked account', 'f-auth'),
      remoteCase('SHOP-3', 'Refund', 'f-auth', { priorityId: 'priority-low' }),
      remoteCase('SHOP-4', 'Pay with a saved card', 'f-pay', {
        individualSteps: remoteSteps([
          ['Open /login', 'The login form shows', 'group-SHOP-SG-1'],
          ['Sign in as admin', 'The dashboard shows', 'group-SHOP-SG-1'],
          ['Press "Pay"', 'The order confirmation shows'],
        ]),
      }),
      remoteCase('SHOP-5', 'Obsolete flow', 'f-legacy'),
      remoteCase('SHOP-6', 'Search', 'f-misc'),
    ],
  });
  const desired = desiredState({
    folders: [
      desiredFolder('Authentication', { id: 'f-auth' }),
      desiredFolder('Checkout', { id: 'f-checkout', name: 'Checkout & Cart' }),
      desiredFolder('Checkout/Payments', { id: 'f-pay' }),
      desiredFolder('Checkout/Shipping'),
      desiredFolder('Misc'),
    ],
    stepGroups: [
      desiredGroup('login-as-admin', 'Log in as admin', [...login, ['Dismiss the cookie banner', 'The banner closes']], { id: 'SHOP-SG-1' }),
      desiredGroup('open-cart', 'Open the cart', [['Click the cart icon', 'The cart shows']]),
    ],
    cases: [
      desiredCase(
        'Authentication',
        'Valid login',
        { status: 'Ready', description: 'Signs in with a valid password.\nChecks the greeting and the avatar.\nChecks the menu.' },
        { id: 'SHOP-1' },
      ),
      desiredCase('Checkout', 'Locked account', {}, { id: 'SHOP-2' }),
      desiredCase('Checkout', 'Refund', { priority: 'High' }, { id: 'SHOP-3' }),
      desiredCase('Checkout/Payments', 'Pay with a saved card', { steps: [use('login-as-admin'), step('Press "Pay"', 'The order confirmation shows')] }, { id: 'SHOP-4' }),
      desiredCase('Checkout/Shipping', 'Ship to a saved address', {
        labels: ['smoke'],
        steps: [use('open-cart'), step('Choose the saved address', 'It is preselected')],
      }),
      desiredCase('Misc', 'Search'),
    ],
  });
  return { desired, actual };
}
