import { envTuning } from './env-tuning.js';
import type { ReadTuning } from '../usecases/hooks.js';
import { resolve } from 'node:path';
import { TmsyncError } from '../errors.js';
import type { CliIo, GlobalOptions } from './io.js';
// the modules themselves, not the barrels: every command that talks to a service loads this before its first request
import { CONFIG_DEFAULTS, CONFIG_FILE_NAME, describeSearch, findConfigFile, loadConfig, type TmsyncConfig } from '../repository/config.js';
import { createClient, type TmsClient } from '../remote/client.js';
import type { ClientOptions } from '../remote/client-options.js';
import { formatRequestEvent } from '../remote/verbose.js';
import { withoutCredentials } from '../url-credentials.js';
import { proxyFromEnv, retryNotifier } from './notices.js';

/**
 * Where a command talks to: the configuration, the selected profile and the environment turned
 * into a client. Precedence, highest first: command-line flags, the selected profile, environment
 * variables, tmsync.yaml. The API key only ever comes from the environment.
 */
export interface Target {
  config: TmsyncConfig;
  /** the repository root (the directory of tmsync.yaml, or cwd without one) */
  root: string;
  /** absolute path of tmsync.yaml, undefined when running without one */
  configFile?: string;
  /** the service's URL without credentials (see `url-credentials.ts`): what may be printed and written to files */
  baseUrl: string;
  /** the execution interface's URL, without credentials */
  appUrl: string;
  /** project id, human id prefix or name; may be empty when `requireProject` was false */
  projectRef: string;
  /** how the repository's files are read (TMSYNC_PARSE_WORKERS, TMSYNC_YAML_FAST: `env-tuning.ts`) */
  read: ReadTuning;
  /** the environment variable the key was read from (never the key) */
  apiKeyVar: string;
  client: TmsClient;
  close(): Promise<void>;
}

interface LoadTargetOptions {
  /** a profile other than --profile (migrate's --from/--to) */
  profile?: string;
  /** fail when no project is configured @default true */
  requireProject?: boolean;
  /** fail when there is no tmsync.yaml @default false (flags and env suffice) */
  requireConfig?: boolean;
  /** extra client settings a command needs (e.g. `multipartRunCases` for `results push --multipart`) */
  clientOptions?: Pick<ClientOptions, 'multipartRunCases'>;
}

const DEFAULT_CONFIG: TmsyncConfig = { ...CONFIG_DEFAULTS, defaults: {}, profiles: {} };

/**
 * The environment as tmsync reads it: a variable set to the empty string counts as unset (an unset
 * GitHub Actions variable expands to ``, and `TMSYNC_BASE_URL=` must not hide tmsync.yaml's
 * `base_url`). Applies to every variable tmsync reads, including a profile's `api_key_env`.
 */
export function effectiveEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') out[k] = v;
  return out;
}

/** Reads tmsync.yaml (when there is one); no network. */
export async function loadTargetConfig(
  options: GlobalOptions,
  requireConfig = false,
): Promise<{ config: TmsyncConfig; root: string; configFile?: string; searched?: string[] }> {
  let file: string;
  if (options.config !== undefined) {
    file = resolve(options.cwd, options.config);
  } else {
    // like git: the nearest tmsync.yaml in the working directory or above it
    const found = await findConfigFile(options.cwd);
    if (!found.file) {
      if (requireConfig) {
        throw new TmsyncError('config_not_found', `no ${CONFIG_FILE_NAME} in ${resolve(options.cwd)} or any directory above it`, {
          hint: `looked in ${describeSearch(found.searched)}; run \`tmsync init\` to create a tests repository, or pass --config FILE`,
          details: { searched: found.searched },
        });
      }
      return { config: DEFAULT_CONFIG, root: resolve(options.cwd), searched: found.searched };
    }
    file = found.file;
  }
  const loaded = await loadConfig(file);
  return { config: loaded.config, root: loaded.root, configFile: loaded.file };
}

export async function loadTarget(
  options: GlobalOptions,
  io: CliIo,
  extra: LoadTargetOptions = {},
): Promise<Target> {
  const { config, root, configFile, searched } = await loadTargetConfig(options, extra.requireConfig ?? false);
  const profileName = extra.profile ?? options.profile;
  let profile: TmsyncConfig['profiles'][string] | undefined;
  if (profileName !== undefined) {
    profile = config.profiles[profileName];
    if (!profile) {
      const known = Object.keys(config.profiles);
      throw new TmsyncError('unknown_profile', `no profile named "${profileName}" in ${configFile ?? 'tmsync.yaml'}`, {
        hint: known.length ? `known profiles: ${known.join(', ')}` : 'add it under `profiles:` in tmsync.yaml',
      });
    }
  }
  const env = effectiveEnv(io.env);
  // an explicit --profile wins over the global --base-url/--project only for migrate's --from/--to
  const flagFirst = extra.profile === undefined;
  const pick = (flag: string | undefined, fromProfile: string | undefined, fromEnv: string | undefined, fromConfig: string | undefined) =>
    (flagFirst ? flag : undefined) ?? fromProfile ?? fromEnv ?? fromConfig ?? (flagFirst ? undefined : flag);

  const baseUrl = pick(options.baseUrl, profile?.baseUrl, env.TMSYNC_BASE_URL, config.baseUrl);
  if (!baseUrl) {
    const noConfig = searched ? ` (no ${CONFIG_FILE_NAME} was found; looked in ${describeSearch(searched)})` : '';
    throw new TmsyncError('missing_base_url', `no service URL is configured${noConfig}`, {
      hint: searched
        ? 'run tmsync inside a tests repository (one with tmsync.yaml), pass --config FILE, or set TMSYNC_BASE_URL / --base-url (e.g. http://127.0.0.1:4010/api/v1)'
        : 'set base_url in tmsync.yaml, export TMSYNC_BASE_URL, or pass --base-url (e.g. http://127.0.0.1:4010/api/v1)',
    });
  }
  validateUrl(baseUrl, 'base URL');
  if (!/\/api\/v1\/?$/.test(new URL(baseUrl).pathname)) {
    // otherwise every call 404s and the first message blames the project
    const shown = withoutCredentials(baseUrl);
    throw new TmsyncError('invalid_url', `the base URL "${shown}" does not end in /api/v1`, {
      hint: `the service's interface lives under /api/v1: use ${shown.replace(/\/+$/, '')}/api/v1`,
    });
  }
  const projectRef = pick(options.project, profile?.project, env.TMSYNC_PROJECT, config.project) ?? '';
  if (!projectRef && extra.requireProject !== false) {
    throw new TmsyncError('missing_project', 'no project is configured', {
      hint: 'set project in tmsync.yaml, export TMSYNC_PROJECT, or pass --project (an id, prefix or name)',
    });
  }
  const apiKeyVar = profile?.apiKeyEnv ?? 'TMSYNC_API_KEY';
  const apiKey = env[apiKeyVar];
  if (!apiKey) {
    throw new TmsyncError('missing_api_key', `no API key: the environment variable ${apiKeyVar} is not set`, {
      hint: `export ${apiKeyVar}=<your API key> (keys are read only from the environment, never from files)`,
    });
  }
  const appUrl =
    env.TMSYNC_APP_URL ?? profile?.appUrl ?? config.appUrl ?? baseUrl.replace(/\/api\/v1\/?$/, '');
  validateUrl(appUrl, 'execution interface URL');

  const clientOptions: ClientOptions = {
    baseUrl,
    appUrl,
    apiKey,
    apiKeyVar,
    appApiKey: env.TMSYNC_APP_API_KEY ?? apiKey,
    rateLimit: profile?.rateLimit ?? config.rateLimit,
    concurrency: profile?.concurrency ?? config.concurrency,
    pageSize: config.pageSize,
    timeoutMs: config.requestTimeoutMs,
    maxRetries: config.maxRetries,
    maxPages: config.maxPages,
    maxResponseBytes: config.maxResponseBytes,
    runCaseEncoding: config.resultsEncoding,
    signal: io.signal,
    onEvent: options.verbose ? (e) => io.stderr(formatRequestEvent(e)) : undefined,
    onRetry: retryNotifier((line) => io.stderr(line)),
    proxy: proxyFromEnv(env),
    ...(io.clock ? { clock: io.clock } : {}),
    ...extra.clientOptions,
  };
  const client = createClient(clientOptions);
  return {
    config,
    root,
    configFile,
    // the client alone holds the credentials: what commands print or persist has none
    baseUrl: withoutCredentials(baseUrl),
    appUrl: withoutCredentials(appUrl),
    projectRef,
    apiKeyVar,
    client,
    read: envTuning(env).load,
    close: () => client.close(),
  };
}

function validateUrl(url: string, what: string): void {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw new TmsyncError('invalid_url', `the ${what} "${withoutCredentials(url)}" is not an http(s) URL`, {
      hint: 'use a full URL such as https://tms.example.com/api/v1',
    });
  }
}
