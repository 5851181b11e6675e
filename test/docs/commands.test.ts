/**
 * Every `reconstruct COMMAND --flag` the documentation shows (README.md and docs/*.md, in sh blocks and in
 * inline code) names a command that exists and flags that its `--help` lists. The commands are not run.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { clusterCommand, CLUSTER_HELP } from '../../cli/cluster-command';
import { controllerCommand } from '../../cli/controller';
import { diffCommand } from '../../cli/diff/command';
import { previewCommand } from '../../cli/preview/command';
import { genCommand } from '../../cli/gen';
import { devCommand } from '../../cli/dev/command';
import { createCommand, initCommand } from '../../cli/init';
import { installCommand } from '../../cli/install';
import { krmCommand } from '../../cli/krm';
import { migrateCommand } from '../../cli/migrate';
import { synthCommand } from '../../cli/synth';
import { treeCommand } from '../../cli/tree/command';
import { inputsCommand } from '../../cli/inputs';
import { reconcileCommand } from '../../cli/operate/reconcile';
import { resumeCommand, suspendCommand } from '../../cli/operate/suspend';
import { ROOT, codeBlocks } from '../support/snippets';

/** Each command of cli/main.ts, as it prints its help. */
const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  synth: (argv) => synthCommand(argv),
  krm: (argv) => krmCommand(argv),
  diff: (argv) => diffCommand(argv),
  preview: (argv) => previewCommand(argv),
  tree: (argv) => treeCommand(argv),
  inputs: (argv) => inputsCommand(argv),
  suspend: (argv) => suspendCommand(argv),
  resume: (argv) => resumeCommand(argv),
  reconcile: (argv) => reconcileCommand(argv),
  controller: controllerCommand,
  install: (argv) => installCommand(argv, '0.0.0'),
  gen: genCommand,
  init: (argv) => initCommand(argv),
  create: (argv) => createCommand(argv),
  cluster: clusterCommand,
  dev: (argv) => devCommand(argv),
  migrate: (argv) => migrateCommand(argv),
};
/** Commands that take no flags. */
const PLAIN = new Set(['version', 'help']);

/** What `reconstruct <command> --help` prints. */
async function helpOf(command: string): Promise<string> {
  const chunks: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  });
  try {
    expect(await COMMANDS[command](['--help'])).toBe(0);
  } finally {
    write.mockRestore();
  }
  return chunks.join('');
}

interface Use {
  /** `README.md:12`. */
  readonly where: string;
  readonly command: string;
  /** The words after the command up to the end of its options: a pipe, `&&`, `;`, `)`, a comment or `--`. */
  readonly words: string[];
}

const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith('.md'),
);

/** Each `reconstruct COMMAND ...` of the docs' sh blocks and inline code. */
function uses(): Use[] {
  const found: Use[] = [];
  const scan = (text: string, where: string) => {
    for (const match of text.matchAll(/(?<![\w./-])reconstruct[ \t]+([a-z][\w-]*)([^|;&#)`\n]*)/g)) {
      const words = match[2].split(/\s+/).filter(Boolean);
      const end = words.indexOf('--');
      found.push({ where, command: match[1], words: end < 0 ? words : words.slice(0, end) });
    }
  };
  for (const doc of DOCS) {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    for (const block of codeBlocks(doc).filter((b) => b.lang === 'sh')) {
      block.code
        .replace(/\\\n/g, ' ') // continued lines are one command
        .split('\n')
        .forEach((line, i) => scan(line, `${doc}:${block.line + 1 + i}`));
    }
    // Inline code outside the blocks.
    const prose = text.replace(/^\s*```[\s\S]*?^\s*```/gm, (b) => b.replace(/[^\n]/g, ''));
    prose.split('\n').forEach((line, i) => {
      for (const span of line.matchAll(/`([^`]+)`/g)) scan(span[1], `${doc}:${i + 1}`);
    });
  }
  return found;
}

const all = uses();

test('the docs show commands (the scan finds them)', () => {
  expect(all.length).toBeGreaterThan(20);
});

describe.each(Object.keys(COMMANDS))('reconstruct %s', (command) => {
  const mine = all.filter((u) => u.command === command);
  test('each flag the docs give it is in its --help', async () => {
    const help = await helpOf(command);
    const missing = mine.flatMap((use) =>
      use.words
        .filter((w) => /^--?[a-zA-Z]/.test(w))
        .map((w) => w.replace(/=.*$/, ''))
        .filter((flag) => !new RegExp(`(^|[\\s\\[,|(])${flag}(?![\\w-])`).test(help))
        .map((flag) => `${use.where}: reconstruct ${command} ${flag} is not in its --help`),
    );
    expect(missing).toEqual([]);
  });
});

test('every command the docs name exists, and each cluster subcommand', () => {
  const unknown = all
    .filter((u) => !(u.command in COMMANDS) && !PLAIN.has(u.command))
    .map((u) => `${u.where}: reconstruct ${u.command}`);
  expect(unknown).toEqual([]);
  const subcommands = all
    .filter((u) => u.command === 'cluster' && u.words[0] && !u.words[0].startsWith('-'))
    .filter((u) => !new RegExp(`^  ${u.words[0]} `, 'm').test(CLUSTER_HELP))
    .map((u) => `${u.where}: reconstruct cluster ${u.words[0]}`);
  expect(subcommands).toEqual([]);
});
