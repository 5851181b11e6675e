/** `reconstruct suspend`, `resume` and `reconcile` before they reach a cluster: their usage, and what they print. */
import { PassThrough } from 'node:stream';
import { reconcileCommand, readyLine, timeoutOf } from '../../cli/operate/reconcile';
import { resumeCommand, suspendCommand } from '../../cli/operate/suspend';
import { memcachedKind } from '../../constructs';
import { memcached } from '../fixtures/resources';

function io() {
  const out = new PassThrough();
  const err = new PassThrough();
  const text = { out: '', err: '' };
  out.on('data', (d: Buffer) => (text.out += d.toString()));
  err.on('data', (d: Buffer) => (text.err += d.toString()));
  return { io: { out, err }, text };
}

describe.each([
  ['suspend', suspendCommand],
  ['resume', resumeCommand],
  ['reconcile', reconcileCommand],
] as const)('reconstruct %s', (name, command) => {
  it('prints its help with -h, and exits 0', async () => {
    const { io: streams, text } = io();
    expect(await command(['-h'], streams)).toBe(0);
    expect(text.out).toMatch(new RegExp(`^Usage: reconstruct ${name} KIND/NAME`));
  });

  it.each([[[]], [['memcached']], [['memcached/cache', '--all']], [['memcached/a', 'memcached/b']]])(
    'refuses %j: one KIND/NAME, or KIND with --all (exit 2)',
    async (args) => {
      const { io: streams, text } = io();
      expect(await command(args, streams)).toBe(2);
      expect(text.err).toMatch(new RegExp(`^reconstruct ${name}: give KIND/NAME, or KIND with --all\\n`));
    },
  );

  it('names the kinds it knows when the kind is not one of them', async () => {
    const { io: streams, text } = io();
    expect(await command(['widget/w'], streams)).toBe(2);
    expect(text.err).toMatch(new RegExp(`^reconstruct ${name}: no kind "widget" among .*Memcached`));
  });
});

describe('--kind', () => {
  it.each([
    [suspendCommand, ['memcached/cache', '--kind'], 'reconstruct suspend: --kind takes a KIND alone\n'],
    [resumeCommand, ['memcached', '--kind', '--all'], 'reconstruct resume: --kind takes a KIND alone\n'],
    [
      resumeCommand,
      ['memcached', '--kind', '--wait'],
      'reconstruct resume: --wait waits for resources, not a kind (then: reconstruct reconcile KIND --all -A --wait)\n',
    ],
  ])('refuses what it cannot do with a whole kind (exit 2)', async (command, args, message) => {
    const { io: streams, text } = io();
    expect(await command(args, streams)).toBe(2);
    expect(text.err.split('\n\n')[0] + (text.err.includes('\n\n') ? '\n' : '')).toBe(message);
  });
});

describe('--timeout', () => {
  it('takes a positive number of seconds, 60 when not given', () => {
    expect(timeoutOf(undefined)).toBe(60);
    expect(timeoutOf('2.5')).toBe(2.5);
    expect(timeoutOf('0')).toBeUndefined();
    expect(timeoutOf('soon')).toBeUndefined();
  });

  it('is refused, naming the value, before anything is written', async () => {
    const { io: streams, text } = io();
    expect(await reconcileCommand(['memcached/cache', '--wait', '--timeout', 'soon'], streams)).toBe(2);
    expect(text.err).toBe('reconstruct reconcile: --timeout takes a number of seconds, not "soon"\n');
  });
});

describe('readyLine', () => {
  it("says the resource's Ready condition in one line, and whether it is True", () => {
    const resource = {
      ...memcached('cache', { size: 1 }, 'demo'),
      status: {
        conditions: [{ type: 'Ready', status: 'False', reason: 'Progressing', message: '0 of 1 ready' }],
      },
    };
    expect(readyLine(memcachedKind, resource)).toEqual({
      line: 'Memcached demo/cache: Ready=False Progressing: 0 of 1 ready',
      ready: false,
    });
    expect(readyLine(memcachedKind, memcached('new', { size: 1 }, 'demo')).line).toBe(
      'Memcached demo/new: Ready=Unknown',
    );
  });
});
