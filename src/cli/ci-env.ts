import type { RunMetadata } from '../results/test-runs.js';

/**
 * What the CI the command runs in tells about itself, read from its environment here (the library
 * takes it as options): where a new run was made, and which shard (job) a push comes from.
 */

/** GitHub Actions or GitLab CI: the pipeline's page, the commit and the branch; nothing elsewhere. */
export function ciRunMetadata(env: NodeJS.ProcessEnv): RunMetadata | undefined {
  const v = (name: string) => (env[name] ?? '').trim() || undefined;
  if (v('GITHUB_ACTIONS') === 'true') {
    const server = v('GITHUB_SERVER_URL') ?? 'https://github.com';
    const repo = v('GITHUB_REPOSITORY');
    const runId = v('GITHUB_RUN_ID');
    return compact({
      pipelineUrl: repo && runId ? `${server.replace(/\/+$/, '')}/${repo}/actions/runs/${runId}` : undefined,
      commit: v('GITHUB_SHA'),
      branch: v('GITHUB_HEAD_REF') ?? v('GITHUB_REF_NAME'),
    });
  }
  if (v('GITLAB_CI') === 'true') {
    return compact({ pipelineUrl: v('CI_PIPELINE_URL'), commit: v('CI_COMMIT_SHA'), branch: v('CI_COMMIT_REF_NAME') });
  }
  return undefined;
}

/**
 * The shard a push comes from when --shard is not given: TMSYNC_SHARD; on GitHub Actions the job's
 * id (GITHUB_JOB: the same for every leg of a matrix, which exposes no index to the environment,
 * hence the workflow's `--shard ${{ strategy.job-index }}`); on GitLab CI the job's name
 * (CI_JOB_NAME, which `parallel: N` already numbers `test 2/3`; CI_NODE_INDEX is added when not).
 */
export function ciShard(env: NodeJS.ProcessEnv): string | undefined {
  const v = (name: string) => (env[name] ?? '').trim() || undefined;
  const explicit = v('TMSYNC_SHARD');
  if (explicit) return explicit;
  if (v('GITHUB_ACTIONS') === 'true') return v('GITHUB_JOB');
  if (v('GITLAB_CI') === 'true') {
    const name = v('CI_JOB_NAME');
    const index = v('CI_NODE_INDEX');
    if (!name) return index;
    return index && !name.includes(`${index}/`) ? `${name} #${index}` : name;
  }
  return undefined;
}

function compact(meta: RunMetadata): RunMetadata | undefined {
  const out: RunMetadata = {};
  if (meta.pipelineUrl) out.pipelineUrl = meta.pipelineUrl;
  if (meta.commit) out.commit = meta.commit;
  if (meta.branch) out.branch = meta.branch;
  return Object.keys(out).length > 0 ? out : undefined;
}
