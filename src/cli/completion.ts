import type { Command } from 'commander';

/** What completion needs of a command: its words, its options, the values of choice options. */
interface CompletionNode {
  /** the words leading to it (`[]` for the program, `['run', 'trigger']`) */
  path: string[];
  /** long and short flags (`--out`, `-q`) */
  options: string[];
  /** flags that take a value, with the choices when there is a fixed list */
  valueOptions: Record<string, string[]>;
  subcommands: string[];
}

type Shell = 'bash' | 'zsh' | 'fish';

/** Flattens a commander program into completion nodes (program first). Global options ride on every node. */
export function completionNodes(program: Command): CompletionNode[] {
  const globals = program.options;
  const nodes: CompletionNode[] = [];
  const walk = (cmd: Command, path: string[]) => {
    const options = path.length === 0 ? cmd.options : [...cmd.options, ...globals];
    const flags: string[] = [];
    const valueOptions: Record<string, string[]> = {};
    for (const o of options) {
      for (const f of [o.long, o.short]) {
        if (!f) continue;
        flags.push(f);
        if (o.required || o.optional) valueOptions[f] = o.argChoices ?? [];
      }
    }
    flags.push('--help');
    const subs = cmd.commands.filter((c) => c.name() !== 'help');
    nodes.push({ path, options: [...new Set(flags)], valueOptions, subcommands: subs.map((c) => c.name()) });
    for (const c of subs) walk(c, [...path, c.name()]);
  };
  walk(program, []);
  return nodes;
}

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The completion script of a shell, for `tmsync completion SHELL`. Pure. */
export function completionScript(shell: Shell, nodes: CompletionNode[], name = 'tmsync'): string {
  if (shell === 'fish') return fishScript(nodes, name);
  const bash = bashScript(nodes, name);
  if (shell === 'bash') return bash;
  // zsh runs the bash function through its bash-completion emulation
  return `#compdef ${name}\n# tmsync completion for zsh: eval "$(${name} completion zsh)" in ~/.zshrc\nautoload -U +X bashcompinit && bashcompinit\n${bash}`;
}

function bashScript(nodes: CompletionNode[], name: string): string {
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, '_')}_completion`;
  const key = (path: string[]) => path.join(' ');
  const commandPaths = nodes.filter((n) => n.path.length > 0).map((n) => shq(key(n.path)));
  const wordCases = nodes
    .map((n) => `    ${shq(key(n.path))}) words=${shq([...n.subcommands, ...n.options].join(' '))} ;;`)
    .join('\n');
  const valueCases: string[] = [];
  for (const n of nodes) {
    for (const [flag, choices] of Object.entries(n.valueOptions)) {
      valueCases.push(`    ${shq(`${key(n.path)}|${flag}`)}) ${choices.length ? `COMPREPLY=($(compgen -W ${shq(choices.join(' '))} -- "$cur"))` : 'COMPREPLY=()'}; return ;;`);
    }
  }
  return `# tmsync completion for bash: eval "$(${name} completion bash)" in ~/.bashrc
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" path="" w i words=""
  [ "$COMP_CWORD" -gt 0 ] && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "\${path:+$path }$w" in
      ${commandPaths.join('|')}) path="\${path:+$path }$w" ;;
    esac
  done
  case "$path|$prev" in
${valueCases.join('\n')}
  esac
  case "$path" in
${wordCases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F ${fn} ${name}
`;
}

function fishScript(nodes: CompletionNode[], name: string): string {
  const lines = [`# tmsync completion for fish: ${name} completion fish > ~/.config/fish/completions/${name}.fish`, `complete -c ${name} -f`];
  // "the words typed so far are exactly this path" — a helper keeps the conditions short
  const helper = `__${name.replace(/[^A-Za-z0-9_]/g, '_')}_path`;
  const known = nodes.filter((n) => n.path.length > 0).map((n) => n.path.join(' '));
  lines.push(
    `function ${helper}`,
    `    set -l path`,
    `    for w in (commandline -opc)[2..-1]`,
    `        if contains -- (string join ' ' $path $w) ${known.map(shq).join(' ')}`,
    `            set path $path $w`,
    `        end`,
    `    end`,
    `    test (string join ' ' $path) = "$argv"`,
    `end`,
  );
  for (const n of nodes) {
    const cond = `-n ${shq(`${helper} ${n.path.join(' ')}`.trim())}`;
    for (const s of n.subcommands) lines.push(`complete -c ${name} ${cond} -a ${shq(s)}`);
    for (const f of n.options) {
      const flag = f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`;
      const value = n.valueOptions[f];
      const arg = value === undefined ? '' : value.length ? ` -x -a ${shq(value.join(' '))}` : ' -r -F';
      lines.push(`complete -c ${name} ${cond} ${flag}${arg}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
