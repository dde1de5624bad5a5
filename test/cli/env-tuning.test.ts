import { describe, expect, it } from 'vitest';
import { envTuning } from '../../src/cli/env-tuning.js';

describe('the environment variables the CLI hands to the library as options', () => {
  it('reads nothing when none is set: the library keeps its defaults', () => {
    expect(envTuning({})).toEqual({ load: {}, pullWriteMode: 'batch' });
  });

  it('takes TMSYNC_PARSE_WORKERS when it is an integer', () => {
    expect(envTuning({ TMSYNC_PARSE_WORKERS: '0' }).load).toEqual({ workers: 0 });
    expect(envTuning({ TMSYNC_PARSE_WORKERS: '3' }).load).toEqual({ workers: 3 });
    for (const value of ['', 'many', '1.5']) expect(envTuning({ TMSYNC_PARSE_WORKERS: value }).load, value).toEqual({});
  });

  it('reads every file the exact way with TMSYNC_YAML_FAST=0 only', () => {
    expect(envTuning({ TMSYNC_YAML_FAST: '0' }).load).toEqual({ exactYaml: true });
    expect(envTuning({ TMSYNC_YAML_FAST: '1' }).load).toEqual({});
  });

  it('writes pulled files one by one with TMSYNC_PULL_WRITE=each only', () => {
    expect(envTuning({ TMSYNC_PULL_WRITE: 'each' }).pullWriteMode).toBe('each');
    expect(envTuning({ TMSYNC_PULL_WRITE: 'batch' }).pullWriteMode).toBe('batch');
    expect(envTuning({ TMSYNC_PULL_WRITE: 'other' }).pullWriteMode).toBe('batch');
  });
});
