import { describe, expect, it } from 'vitest';
import { ciRunMetadata, ciShard } from '../../src/cli/ci-env.js';

describe('CI metadata and shard from the environment', () => {
  it('GitHub Actions: the run page, the commit, the branch (the pull request head branch when there is one), the job as the shard', () => {
    const env = { GITHUB_ACTIONS: 'true', GITHUB_SERVER_URL: 'https://ghe.example.com/', GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '42', GITHUB_SHA: 'abc', GITHUB_REF_NAME: '7/merge', GITHUB_JOB: 'e2e' };
    expect(ciRunMetadata(env)).toEqual({ pipelineUrl: 'https://ghe.example.com/o/r/actions/runs/42', commit: 'abc', branch: '7/merge' });
    expect(ciRunMetadata({ ...env, GITHUB_HEAD_REF: 'feature/x' })?.branch).toBe('feature/x');
    expect(ciShard(env)).toBe('e2e');
    expect(ciShard({ ...env, TMSYNC_SHARD: 'e2e-2' })).toBe('e2e-2');
  });

  it('GitLab CI: the pipeline URL, commit and ref; the job name, numbered by CI_NODE_INDEX when the name is not', () => {
    const env = { GITLAB_CI: 'true', CI_PIPELINE_URL: 'https://gl.example.com/g/p/-/pipelines/9', CI_COMMIT_SHA: 'def', CI_COMMIT_REF_NAME: 'main', CI_JOB_NAME: 'e2e 2/3', CI_NODE_INDEX: '2' };
    expect(ciRunMetadata(env)).toEqual({ pipelineUrl: 'https://gl.example.com/g/p/-/pipelines/9', commit: 'def', branch: 'main' });
    expect(ciShard(env)).toBe('e2e 2/3');
    expect(ciShard({ ...env, CI_JOB_NAME: 'e2e' })).toBe('e2e #2');
  });

  it('elsewhere: no metadata and no shard unless TMSYNC_SHARD names one', () => {
    expect(ciRunMetadata({ CI: 'true', GITHUB_SHA: 'abc' })).toBeUndefined();
    expect(ciShard({})).toBeUndefined();
    expect(ciShard({ TMSYNC_SHARD: ' local ' })).toBe('local');
  });
});
