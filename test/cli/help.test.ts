import { spawnSync } from 'node:child_process';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { completionNodes, completionScript } from '../../src/cli/completion.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { runCli } from '../support/cli.js';
import { buildProgram, EXAMPLES } from '../../src/cli/program.js';

const help = async (...args: string[]) => {
  const { code, outLines } = await runCli([...args, '--help'], { cwd: process.cwd() });
  return { code, out: outLines.join('') };
};

function commandPaths(cmd: Command, path: string[] = []): string[][] {
  return [path, ...cmd.commands.flatMap((c) => commandPaths(c, [...path, c.name()]))];
}

describe('--help', () => {
  it("a subcommand's help lists the global options too", async () => {
    for (const args of [['plan'], ['run', 'trigger'], ['results', 'push']]) {
      const h = await help(...args);
      expect(h.code).toBe(0);
      expect(h.out).toContain('Global Options:');
      for (const flag of ['--base-url', '--project', '--json', '--no-color', '--config']) expect(h.out, `${args.join(' ')} ${flag}`).toContain(flag);
    }
  });

  it('every command, the program included, shows examples', async () => {
    const paths = commandPaths(buildProgram(memoryIo({}), process.cwd(), () => undefined));
    expect(paths.length).toBeGreaterThan(15);
    for (const path of paths) {
      expect(EXAMPLES[path.join(' ')], `examples of "${path.join(' ')}"`).toBeDefined();
      const h = await help(...path);
      expect(h.out, path.join(' ')).toMatch(/\nExamples:\n {2}\$ .*tmsync /);
    }
  });

  it('says what is true of defaults and of matching: serve keeps memory by default, results push names its mapping rules', async () => {
    const serve = await help('serve');
    expect(serve.out).toMatch(/--memory\s+keep everything in memory \(the default without\s+--db\)/);
    expect(serve.out).not.toMatch(/--memory[^\n]*\n?[^\n]*\(default: false\)/);
    const push = await help('results', 'push');
    expect(push.out).toMatch(/--mapping\s+file[\s\S]*test_case[\s\S]*human\s+id\s+in\s+its\s+name/);
  });

  it('names the exit code 130 (interrupted) and the duration syntax', async () => {
    const h = await help();
    expect(h.out).toContain('130 interrupted');
    expect(h.out).toContain('a bare number is seconds');
  });
});

describe('tmsync completion', () => {
  const bashScript = async () => {
    const io = memoryIo({});
    expect(await main(['node', 'tmsync', 'completion', 'bash'], io, process.cwd())).toBe(0);
    return io.out.join('');
  };
  /** What bash completes for the words typed so far (the last one is being typed). */
  const complete = (script: string, words: string[]): string[] => {
    const r = spawnSync(
      'bash',
      ['-c', `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _tmsync_completion; printf '%s\\n' "\${COMPREPLY[@]}"`],
      { encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    return r.stdout.split('\n').filter(Boolean);
  };

  it('bash completes commands, subcommands, flags (globals included) and the choices of a flag', async () => {
    const script = await bashScript();
    expect(complete(script, ['tmsync', 'pl'])).toEqual(['plan']);
    expect(complete(script, ['tmsync', 'run', ''])).toEqual(expect.arrayContaining(['trigger', 'status', 'report']));
    expect(complete(script, ['tmsync', 'run', 'trigger', '--j'])).toEqual(['--junit', '--json']);
    expect(complete(script, ['tmsync', 'plan', '--format', ''])).toEqual(['text', 'markdown', 'json']);
    expect(complete(script, ['tmsync', 'validate', '--format', ''])).toEqual(['text', 'codequality']);
    expect(complete(script, ['tmsync', '--verbose', 'apply', '--q'])).toEqual(['--quiet']);
  });

  it('zsh gets the same completion through bashcompinit; fish gets one `complete` line per word', async () => {
    const program = buildProgram(memoryIo({}), process.cwd(), () => undefined);
    const nodes = completionNodes(program);
    const zsh = completionScript('zsh', nodes);
    expect(zsh.startsWith('#compdef tmsync\n')).toBe(true);
    expect(zsh).toContain('bashcompinit');
    expect(zsh).toContain('complete -o default -F _tmsync_completion tmsync');
    const fish = completionScript('fish', nodes);
    expect(fish).toContain("complete -c tmsync -n '__tmsync_path run' -a 'report'");
    expect(fish).toContain("complete -c tmsync -n '__tmsync_path plan' -l format -x -a 'text markdown json'");
    expect(fish).toContain("complete -c tmsync -n '__tmsync_path apply' -s q");
  });

  it('refuses a shell it does not know, listing the ones it does', async () => {
    const io = memoryIo({});
    expect(await main(['node', 'tmsync', 'completion', 'tcsh'], io, process.cwd())).toBe(1);
    expect(io.err.join('')).toMatch(/bash, zsh, fish/);
  });
});

describe('usage errors under --json', () => {
  it('print the one JSON error shape on stdout as well as the message on stderr', async () => {
    const io = memoryIo({});
    expect(await main(['node', 'tmsync', 'plan', '--bogus', '--json'], io, process.cwd())).toBe(1);
    const j = JSON.parse(io.out.join(''));
    expect(j).toEqual({ format_version: 2, error: { code: 'usage', message: "unknown option '--bogus'", hint: 'run with --help for usage', details: { commander: 'commander.unknownOption' } } });
    expect(io.err.join('')).toContain("unknown option '--bogus'");
  });

  it('print Error: and Hint: on stderr like every other error, not commander\'s lowercase error:', async () => {
    const io = memoryIo({});
    expect(await main(['node', 'tmsync', 'plan', '--bogus'], io, process.cwd())).toBe(1);
    expect(io.err.join('')).toBe("Error: unknown option '--bogus'\nHint: run with --help for usage\n");
  });

  it('colour Error: and Hint: of a usage error when stderr is a terminal, unless NO_COLOR or --no-color', async () => {
    const tty = (env: NodeJS.ProcessEnv) => ({ ...memoryIo(env), stderrIsTTY: true });
    const io = tty({});
    expect(await main(['node', 'tmsync', 'validate', '--bogus'], io, process.cwd())).toBe(1);
    expect(io.err.join('')).toBe("\u001b[1;31mError:\u001b[0m unknown option '--bogus'\n\u001b[33mHint:\u001b[0m run with --help for usage\n");
    const plain = tty({ NO_COLOR: '1' });
    expect(await main(['node', 'tmsync', 'validate', '--bogus'], plain, process.cwd())).toBe(1);
    expect(plain.err.join('')).not.toContain('\u001b[');
    const flag = tty({});
    expect(await main(['node', 'tmsync', 'validate', '--bogus', '--no-color'], flag, process.cwd())).toBe(1);
    expect(flag.err.join('')).not.toContain('\u001b[');
  });

  it('print nothing on stdout without --json', async () => {
    const io = memoryIo({});
    expect(await main(['node', 'tmsync', 'plan', '--bogus'], io, process.cwd())).toBe(1);
    expect(io.out).toEqual([]);
  });
});
