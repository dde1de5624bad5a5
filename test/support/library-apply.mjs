#!/usr/bin/env node
// A library user's apply, as a child process the tests can kill: the published entry (dist/index.js)
// loads the repository, reads the service, builds the plan and applies it with `applyPlan`.
//   node test/support/library-apply.mjs ROOT   (TMSYNC_API_KEY in the environment)
import { join } from 'node:path';
import { applyPlan, buildPlan, createClient, fetchState, fileWriteBack, loadConfig, loadRepository } from '../../dist/index.js';

const root = process.argv[2];
const { config } = await loadConfig(join(root, 'tmsync.yaml'));
const client = createClient({ baseUrl: config.baseUrl, apiKey: process.env.TMSYNC_API_KEY, rateLimit: 1000, concurrency: 8 });
try {
  const { state } = await loadRepository(root, config);
  const actual = await fetchState(client, config.project);
  const { plan } = buildPlan(state, actual);
  const result = await applyPlan(plan, {
    client,
    root,
    writeBack: fileWriteBack(root),
    existingIds: [...actual.folders, ...actual.cases, ...actual.stepGroups].map((x) => x.id),
    existingTopFolders: actual.folders.filter((f) => f.parentId === null).map((f) => ({ id: f.id, name: f.name })),
  });
  process.stdout.write(`${JSON.stringify({ created: result.created, failed: result.failed.length, skipped: result.skipped.length })}\n`);
  process.exitCode = result.failed.length || result.skipped.length ? 1 : 0;
} finally {
  await client.close();
}
