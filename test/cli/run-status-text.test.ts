import { afterEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startScripted, type ScriptedServer } from '../remote/scripted-server.js';

/** `run status` and `run trigger` print the service's words (status, result, message) on their lines, made safe. */

const INJECTED = 'x\n::error file=tmsync.yaml,line=1::injected\n::add-mask::Plan\u001b]0;pwned\u0007';
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
let server: ScriptedServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('run messages with hostile text from the service', () => {
  it('run status and run trigger keep the status, result and message from starting a workflow command or reaching the terminal as controls', async () => {
    server = await startScripted((req) => {
      if (req.method === 'POST') return { json: { id: `7${INJECTED}` } };
      return { json: { id: 7, status: `COMPLETED${INJECTED}`, result: `SUCCESS${INJECTED}`, message: INJECTED, totalCount: 1, passedCount: 1 } };
    });
    const env = { TMSYNC_BASE_URL: `${server.url}/api/v1`, TMSYNC_API_KEY: 'k', TMSYNC_PROJECT: 'DEMO' };
    for (const args of [
      ['run', 'status', '7'],
      ['run', 'trigger', '--test-plan', '12', '--wait', '--poll', '1ms', '--timeout', '50ms'],
    ]) {
      const io = memoryIo(env);
      await main(['node', 'tmsync', ...args], io, process.cwd());
      const text = [...io.out, ...io.err].join('\n');
      expect(text, args.join(' ')).toContain('x\\n::error file=tmsync.yaml,line=1::injected\\n::add-mask::Plan\\x1b]0;pwned\\x07');
      expect(text, args.join(' ')).not.toMatch(/^\s*::/m);
      expect(text, args.join(' ')).not.toMatch(CONTROL);
    }
  }, 15_000);
});
