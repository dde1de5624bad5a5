import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * The composite action at the repository root. Structure is checked against what GitHub requires of
 * an action's metadata (actionlint checks workflows, not action.yml); its run step is executed with
 * bash against the built CLI (run `npm run build` first), as the runner would run it.
 */
const exec = promisify(execFile);
const repo = join(import.meta.dirname, '..', '..');

interface ActionStep {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  shell?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  'working-directory'?: string;
}
interface Action {
  name: string;
  description: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

let action: Action;
let text: string;
const dirs: string[] = [];

beforeAll(async () => {
  text = await readFile(join(repo, 'action.yml'), 'utf8');
  action = parse(text) as Action;
});
afterAll(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('action.yml', () => {
  it('is a composite action with the inputs command, arguments and version, every run step naming its shell', () => {
    expect(action.name).toBe('tmsync');
    expect(action.description.length).toBeGreaterThan(0);
    expect(action.runs.using).toBe('composite');
    expect(action.inputs.command.required).toBe(true);
    for (const name of ['arguments', 'version', 'working-directory', 'node-version']) expect(typeof action.inputs[name].default, name).toBe('string');
    for (const s of action.runs.steps) {
      expect(Boolean(s.run) !== Boolean(s.uses), `${s.name}: run or uses`).toBe(true);
      if (s.run) expect(s.shell, s.name).toBe('bash');
    }
    expect(action.outputs['exit-code'].value).toBe('${{ steps.run.outputs.exit-code }}');
    expect(action.runs.steps.some((s) => s.id === 'run')).toBe(true);
  });

  it('references only inputs it declares, and passes them to scripts through the environment, never inline', () => {
    const used = [...text.matchAll(/inputs\.([a-z-]+)/g)].map((m) => m[1]);
    for (const name of used) expect(Object.keys(action.inputs), name).toContain(name);
    for (const s of action.runs.steps) if (s.run) expect(s.run, s.name).not.toContain('${{');
  });

  it('installs from its own checkout without compiling the emulator, or what `version` names', () => {
    const install = action.runs.steps.find((s) => s.name === 'Install tmsync')!;
    expect(install.env).toEqual({ TMSYNC_INSTALL: '${{ inputs.version }}' });
    expect(install.run).toContain('cd "$GITHUB_ACTION_PATH"');
    expect(install.run).toContain('npm ci --no-audit --no-fund --ignore-scripts');
    expect(install.run).toContain('npm install --global --no-audit --no-fund --ignore-scripts "$GITHUB_ACTION_PATH/$(npm pack --ignore-scripts --silent)"');
    expect(install.run).toContain('npm install --global --no-audit --no-fund "$TMSYNC_INSTALL"');
  });

  it("runs the command with shell-quoted arguments, records tmsync's exit code as the output and exits with it", async () => {
    const step = action.runs.steps.find((s) => s.id === 'run')!;
    const work = await mkdtemp(join(tmpdir(), 'tmsync-action-'));
    dirs.push(work);
    const bin = join(work, 'bin');
    await mkdir(bin);
    await symlink(join(repo, 'bin', 'tmsync.js'), join(bin, 'tmsync'));
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, GITHUB_OUTPUT: join(work, 'output'), NO_COLOR: '1' };
    await exec(process.execPath, [join(repo, 'bin', 'tmsync.js'), 'init', 'my tests'], { cwd: work });

    const ok = await exec('bash', ['-c', step.run!], { cwd: work, env: { ...env, TMSYNC_COMMAND: 'validate', TMSYNC_ARGUMENTS: '"my tests" --format codequality' } });
    expect(JSON.parse(ok.stdout)).toEqual([]);
    expect(await readFile(join(work, 'output'), 'utf8')).toBe('exit-code=0\n');

    const failed = await exec('bash', ['-c', step.run!], { cwd: work, env: { ...env, TMSYNC_COMMAND: 'validate', TMSYNC_ARGUMENTS: 'missing-dir' } }).then(
      () => ({ code: 0 }),
      (e: { code: number }) => ({ code: e.code }),
    );
    expect(failed.code).toBe(1);
    expect(await readFile(join(work, 'output'), 'utf8')).toBe('exit-code=0\nexit-code=1\n');
  });
});
