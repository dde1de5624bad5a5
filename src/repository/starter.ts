import type { LookupKind } from '../model.js';
import { schemaComment } from './schema-comment.js';
import { withoutCredentials } from '../url-credentials.js';

/** One file `tmsync init` writes (path relative to the new repository, `/`-separated). */
interface StarterFile {
  path: string;
  content: string;
}

const STARTER_STEP_GROUP_KEY = 'sign-in';

/** What `tmsync init` learnt from a running service; without it the starter aims at the demo emulator. */
export interface StarterTarget {
  project: string;
  baseUrl: string;
  /** names the service accepts */
  defaults: { type: string; status: string; priority: string; automationType: string; owner: string };
  /** a comment line for tmsync.yaml saying where the values came from */
  source: string;
  /** the service's lookup names, offered for completion by the repository's schema copies */
  lookupNames?: Partial<Record<LookupKind, readonly string[]>>;
}

/** The starter's defaults: the names `tmsync serve --seed demo` knows, `qa-lead@example.com` its first user. */
export const STARTER_DEFAULTS: StarterTarget['defaults'] = {
  type: 'Functional',
  status: 'Draft',
  priority: 'Medium',
  automationType: 'Not Automated',
  owner: 'qa-lead@example.com',
};

/**
 * The starter repository (`example: false` leaves out the case and step group): a commented tmsync.yaml aimed at the local emulator
 * (`tmsync serve --seed demo`) or at the service `target` describes, one case that uses one step
 * group. It validates clean, and its first plan works against that service.
 */
export function starterFiles(target?: StarterTarget, options: { example?: boolean } = {}): StarterFile[] {
  const d = target?.defaults ?? STARTER_DEFAULTS;
  const q = (v: string) => (/^[\w.@ -]+$/.test(v) && !/^[\s-]|\s$/.test(v) ? v : JSON.stringify(v));
  const config = 'tmsync.yaml';
  const example = 'cases/Example/first-case.yaml';
  const group = `step_groups/${STARTER_STEP_GROUP_KEY}.yaml`;
  const files: StarterFile[] = [
    {
      path: config,
      content: `# ${schemaComment('config', config)}
# tmsync configuration. The API key is never written here: export TMSYNC_API_KEY
# (or set a profile's api_key_env) before \`tmsync plan\`.

${
        target
          ? `# ${target.source}\n# project id, human id prefix or exact name\nproject: ${q(target.project)}\n# the service, ending in /api/v1 (or env TMSYNC_BASE_URL)\nbase_url: ${withoutCredentials(target.baseUrl)}\n`
          : `# project id, human id prefix or exact name (\`tmsync serve --seed demo\` creates DEMO)\nproject: DEMO\n# the service, ending in /api/v1 (or env TMSYNC_BASE_URL); this is the local emulator\nbase_url: http://127.0.0.1:4010/api/v1\n`
      }
cases_dir: cases              # one directory per folder, one file per test case
step_groups_dir: step_groups  # one file per step group; the file stem is its key

# scope: [Example]            # only these folders (or paths like Example/Sub) are managed

defaults:                     # used when a new case leaves a field out
  type: ${q(d.type)}
  status: ${q(d.status)}
  priority: ${q(d.priority)}
  automation_type: ${q(d.automationType)}
  owner: ${q(d.owner)}${target ? '' : '        # a user of the demo emulator: use one of yours'}

rate_limit: 8                 # requests per second
concurrency: 4                # requests in flight
`,
    },
  ];
  // the cases directory must exist (validate says so when it does not), and git keeps no empty one
  if (options.example === false) return [...files, { path: 'cases/.gitkeep', content: '' }];
  files.push(
    {
      path: example,
      content: `# ${schemaComment('test-case', example)}
# One test case per file; its directory (cases/Example) is its folder.
# \`tmsync apply\` adds an \`id:\` line once the case exists on the service.
title: Sign in and open the dashboard
description: An example case; edit it or replace it with your own.
steps:
  - use: ${STARTER_STEP_GROUP_KEY}  # the steps of step_groups/${STARTER_STEP_GROUP_KEY}.yaml
  - action: Open the dashboard
    expected: The latest activity is listed
`,
    },
    {
      path: group,
      content: `# ${schemaComment('step-group', group)}
# A step group: steps several cases share, used with \`use: ${STARTER_STEP_GROUP_KEY}\`.
title: Sign in
description: Signs in with a test account.
steps:
  - action: Open /login
    expected: The sign-in form shows
  - action: Sign in with a test account
    expected: The dashboard shows
`,
    },
  );
  return files;
}

/** The line `init` makes sure `.gitignore` has: tmsync's journal and local state. */
export const GITIGNORE_LINE = '.tmsync/';
