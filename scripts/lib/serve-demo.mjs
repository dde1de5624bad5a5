// The demo project's emulator as a child process, started as a user would start it
// (`tmsync serve --port 0 --memory --seed demo`): the demo and the screenshot script share it.
import { spawn } from 'node:child_process';

/**
 * Starts it and resolves once it prints its listening line. Its own stderr (its "Stop with
 * Ctrl-C") would interleave with the caller's output: it is kept, and shown only if it exits early.
 * @returns {Promise<{ server: import('node:child_process').ChildProcess, baseUrl: string }>}
 */
export async function serveDemo(cli, key) {
  const server = spawn(process.execPath, [cli, 'serve', '--port', '0', '--memory', '--seed', 'demo', '--api-key', key], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let serverErr = '';
  server.stderr.on('data', (d) => {
    serverErr += d;
  });
  const baseUrl = await new Promise((resolvePromise, reject) => {
    let buf = '';
    server.stdout.on('data', (d) => {
      buf += d;
      const m = /listening on (\S+)/.exec(buf);
      if (m) resolvePromise(m[1]);
    });
    server.on('exit', (code) => reject(new Error(`the emulator exited with ${code}${serverErr ? `:\n${serverErr}` : ''}`)));
  });
  return { server, baseUrl };
}
