#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build`.
import { main } from '../dist/cli/main.js';

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`tmsync: internal error: ${err && err.message ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
