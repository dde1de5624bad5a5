#!/usr/bin/env node
// Benchmark of buildPlan (issue 5 figures).
//
//   node bench/plan.mjs [--cases 10000] [--changes 2000] [--runs 7]
//
// Builds nothing itself: run `npx tsc -p tsconfig.build.json` first (npm run bench does).
// 1. buildPlan, pure and in memory, for a repository of CASES cases in 200 folders with 50 step
//    groups, where CHANGES items differ from the service (field edits, moves, title changes,
//    step group edits, new cases): median wall time of RUNS runs against the 500 ms target.
// 2. The renderers on that plan: the text a terminal gets (`planTextChunks`), the markdown of a
//    pull-request comment and the saved plan's JSON, median wall time of RUNS runs each.
// The end-to-end figure (`tmsync plan` against a rate-limited emulator) is bench/plan-e2e.mjs.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => import(join(root, 'dist', p));

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const CASES = opt('cases', 10_000);
const CHANGES = opt('changes', 2_000);
const RUNS = opt('runs', 7);
const TARGET_MS = 500;

const { buildPlan, planTextChunks, renderPlanMarkdown, renderPlanJson } = await dist('plan/index.js');

const lookups = {
  types: ['Functional', 'Regression', 'Smoke'].map((name, i) => ({ id: `00000000-0000-4000-8000-1000000000${i}0`, name })),
  statuses: ['Draft', 'Ready', 'Outdated'].map((name, i) => ({ id: `00000000-0000-4000-8000-2000000000${i}0`, name })),
  priorities: ['High', 'Medium', 'Low'].map((name, i) => ({ id: `00000000-0000-4000-8000-3000000000${i}0`, name })),
  automationTypes: ['Automated', 'Not Automated'].map((name, i) => ({ id: `00000000-0000-4000-8000-4000000000${i}0`, name })),
  runStatuses: [],
};
const users = ['qa-lead', 'ana', 'ben'].map((u, i) => ({ id: `00000000-0000-4000-8000-5000000000${i}0`, email: `${u}@example.com` }));
const labels = ['smoke', 'payments', 'auth'].map((name, i) => ({ id: `00000000-0000-4000-8000-6000000000${i}0`, name }));
const uuid = (kind, n) => `00000000-0000-4000-${kind}-${n.toString(16).padStart(12, '0')}`;

/** The service: 200 folders (20 top level), 50 step groups of 3 steps, CASES cases. */
function buildActual() {
  const folders = [];
  for (let i = 0; i < 200; i++) folders.push({ id: uuid('a000', i), name: `Folder ${i}`, parentId: i < 20 ? null : uuid('a000', i % 20), order: i });
  const stepGroups = [];
  for (let i = 0; i < 50; i++) {
    stepGroups.push({
      id: uuid('b000', i),
      humanId: `BENCH-SG-${i + 1}`,
      title: `Group ${i}`,
      description: `shared steps ${i}`,
      labelIds: [],
      steps: [1, 2, 3].map((n) => ({ description: `group ${i} step ${n}`, expected: `ok ${n}`, order: n })),
      createdAt: 1,
      updatedAt: 1,
    });
  }
  const cases = [];
  for (let i = 0; i < CASES; i++) {
    const g = stepGroups[i % 50];
    cases.push({
      id: uuid('c000', i),
      humanId: `BENCH-${i + 1}`,
      title: `Case ${i}: a reasonably descriptive title of a test case`,
      folderId: folders[i % 200].id,
      description: `Description of case ${i}.\nIt has two lines.`,
      preconditions: 'The user is signed in.',
      templateType: 'STEPS',
      steps: '',
      expectedResults: '',
      typeId: lookups.types[i % 3].id,
      statusId: lookups.statuses[i % 3].id,
      priorityId: lookups.priorities[i % 3].id,
      automationTypeId: lookups.automationTypes[i % 2].id,
      ownerId: users[i % 3].id,
      reviewerId: '',
      labelIds: [labels[i % 3].id],
      individualSteps: [
        ...g.steps.map((s, k) => ({ description: s.description, expected: s.expected, order: k + 1, stepGroupId: g.id })),
        { description: `Open page ${i}`, expected: 'The page shows', order: 4, stepGroupId: null },
        { description: `Press the button ${i}`, expected: 'It works', order: 5, stepGroupId: null },
      ],
      createdAt: 1,
      updatedAt: 2,
    });
  }
  return {
    project: { id: uuid('d000', 1), name: 'Bench', humanIdPrefix: 'BENCH' },
    folders,
    cases,
    stepGroups,
    testPlans: [],
    lookups,
    users,
    labels,
    labelsReadable: true,
  };
}

const folderPath = (i) => (i < 20 ? [`Folder ${i}`] : [`Folder ${i % 20}`, `Folder ${i}`]);

/** The repository as `pull` would write it, with CHANGES edits spread over the kinds. */
function buildDesired(actual) {
  const folders = actual.folders.map((f, i) => ({
    path: folderPath(i),
    name: f.name,
    dir: `cases/${folderPath(i).join('/')}`,
    id: f.id,
    file: `cases/${folderPath(i).join('/')}/_folder.yaml`,
  }));
  const stepGroups = actual.stepGroups.map((g, i) => ({
    key: `group-${i}`,
    file: `step_groups/group-${i}.yaml`,
    id: g.humanId,
    title: g.title,
    description: g.description,
    steps: g.steps.map((s) => ({ action: s.description, expected: s.expected })),
    lines: { id: 1, title: 2 },
  }));
  const lines = { id: 1, title: 2, description: 3, status: 4, steps: 5 };
  const cases = actual.cases.map((c, i) => ({
    file: `cases/${folderPath(i % 200).join('/')}/case-${i}.yaml`,
    folderPath: folderPath(i % 200),
    id: c.humanId,
    title: c.title,
    fields: {
      description: c.description,
      preconditions: c.preconditions,
      type: lookups.types[i % 3].name,
      status: lookups.statuses[i % 3].name,
      priority: lookups.priorities[i % 3].name,
      automationType: lookups.automationTypes[i % 2].name,
      owner: users[i % 3].email,
      labels: [labels[i % 3].name],
      steps: [{ kind: 'use', use: `group-${i % 50}` }, { kind: 'step', action: `Open page ${i}`, expected: 'The page shows' }, { kind: 'step', action: `Press the button ${i}`, expected: 'It works' }],
    },
    lines,
  }));
  // CHANGES edits: 40% field edits, 20% moves, 15% title changes, 20% new cases, and step group
  // edits standing for the rest (each touches the cases that use it, counted in the plan)
  const stride = Math.max(1, Math.floor(CASES / CHANGES));
  let made = 0;
  for (let k = 0; made < CHANGES && k * stride < CASES; k++, made++) {
    const i = k * stride;
    const c = cases[i];
    const kind = k % 20;
    if (kind < 8) c.fields = { ...c.fields, status: 'Ready', description: `${c.fields.description}\nA third line.` };
    else if (kind < 12) c.folderPath = folderPath((i + 1) % 200);
    else if (kind < 15) c.title = `${c.title} (renamed)`;
    else if (kind < 19) cases.push({ ...c, id: undefined, file: `${c.file}.new.yaml`, title: `New case ${k}` });
    else stepGroups[k % 50].steps = [...stepGroups[k % 50].steps, { action: 'One more step', expected: 'ok' }];
  }
  return { root: '/bench', casesDir: 'cases', stepGroupsDir: 'step_groups', defaults: { owner: 'ana@example.com', type: 'Functional', status: 'Draft', priority: 'Medium', automationType: 'Not Automated' }, folders, cases, stepGroups, contentHash: 'bench' };
}

const actual = buildActual();
const desired = buildDesired(actual);
// warm-up, then measured runs
let last = buildPlan(desired, actual);
// wall time, and CPU time of this process (less disturbed when the machine is busy)
const times = [];
const cpuTimes = [];
for (let r = 0; r < RUNS; r++) {
  globalThis.gc?.();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  last = buildPlan(desired, actual);
  times.push(performance.now() - t0);
  const c = process.cpuUsage(c0);
  cpuTimes.push((c.user + c.system) / 1000);
}
times.sort((a, b) => a - b);
cpuTimes.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
const cpuMedian = cpuTimes[Math.floor(cpuTimes.length / 2)];
const { plan, problems } = last;
if (problems.length) {
  console.error(`unexpected problems: ${problems.slice(0, 3).map((p) => p.message).join('; ')}`);
  process.exit(1);
}
const s = plan.summary;
console.log(`buildPlan: ${desired.cases.length} cases, ${desired.folders.length} folders, ${desired.stepGroups.length} step groups`);
console.log(`  plan: ${plan.operations.length} operations (${s.create} create, ${s.update} update, ${s.move} move, ${s.delete} delete) from ${CHANGES} edits`);
console.log(`  wall: median ${median.toFixed(1)} ms over ${RUNS} runs (min ${times[0].toFixed(1)}, max ${times.at(-1).toFixed(1)}); target < ${TARGET_MS} ms: ${median < TARGET_MS ? 'met' : 'NOT met'}`);
console.log(`  cpu:  median ${cpuMedian.toFixed(1)} ms (min ${cpuTimes[0].toFixed(1)}); load average ${(await import('node:os')).loadavg()[0].toFixed(1)} on ${(await import('node:os')).availableParallelism()} cpus`);

// the renderers, with what they need beside the plan (`display`, where buildPlan returns one)
const display = last.display;
const renderTimes = { text: [], markdown: [], json: [] };
const renderCpu = [];
let sizes = {};
const digest = (await import('node:crypto')).createHash('sha256');
for (let r = 0; r < RUNS; r++) {
  globalThis.gc?.();
  const c0 = process.cpuUsage();
  let t0 = performance.now();
  let n = 0;
  for (const chunk of planTextChunks(plan, { color: false, display })) {
    n += chunk.length;
    if (r === 0) digest.update(chunk);
  }
  renderTimes.text.push(performance.now() - t0);
  t0 = performance.now();
  const md = renderPlanMarkdown(plan, { display });
  renderTimes.markdown.push(performance.now() - t0);
  t0 = performance.now();
  const json = renderPlanJson(plan, display);
  renderTimes.json.push(performance.now() - t0);
  sizes = { text: n, markdown: md.length, json: json.length };
  if (r === 0) digest.update(md).update(json);
  const c = process.cpuUsage(c0);
  renderCpu.push((c.user + c.system) / 1000);
}
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(1);
console.log(`render: text ${sizes.text} chars median ${med(renderTimes.text)} ms; markdown ${sizes.markdown} chars median ${med(renderTimes.markdown)} ms; json ${sizes.json} chars median ${med(renderTimes.json)} ms (${RUNS} runs)`);
console.log(`  cpu:  median ${med(renderCpu)} ms for the three; sha256 of the three ${digest.digest('hex').slice(0, 16)}`);
