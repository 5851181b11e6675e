import { spawnSync } from 'node:child_process';
import { HEAP_GROWING_PERCENT, heapGrowthFlag } from '../../cli/heap-growth';
import { compileApart, type CompiledModule } from '../support/compiled-apart';

describe('heapGrowthFlag', () => {
  it('caps the growth when node was started without the flag', () => {
    expect(heapGrowthFlag([])).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    expect(heapGrowthFlag(['--max-semi-space-size=4', '--enable-source-maps'])).toBe(
      '--heap-growing-percent=20',
    );
  });

  it("keeps the user's own setting, in either spelling", () => {
    expect(heapGrowthFlag(['--heap-growing-percent=0'])).toBeUndefined();
    expect(heapGrowthFlag(['--heap_growing_percent=50'])).toBeUndefined();
    expect(heapGrowthFlag(['--heap-growing-percent', '50'])).toBeUndefined();
  });
});

describe('capHeapGrowth in a running node', () => {
  // What it rests on: V8 honours the flag when it is set after the process started. Its verbose GC
  // trace prints the factor each full collection sets the next limit with ("Limit: old size: ...
  // new limit: ... (1.2)"). Run in a node of its own, the module compiled apart.
  let module: CompiledModule;
  beforeAll(() => {
    module = compileApart('cli/heap-growth.ts');
  });
  afterAll(() => module.remove());

  const limitFactors = (cap: boolean, nodeArgs: string[] = []): string[] => {
    const script = `${cap ? `require(${JSON.stringify(module.file)}).capHeapGrowth();` : ''}
      const kept = []; for (let i = 0; i < 200000; i++) kept.push({ i }); global.gc(); global.gc();`;
    const res = spawnSync(
      process.execPath,
      ['--expose-gc', '--trace-gc-verbose', ...nodeArgs, '-e', script],
      { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 },
    );
    expect(res.status).toBe(0);
    return [...res.stdout.matchAll(/Limit: old size: \d+ KB, new limit: \d+ KB \(([\d.]+)\)/g)].map(
      (m) => m[1],
    );
  };

  it('sets the next limit at 1.2 times what each full collection kept', () => {
    const factors = limitFactors(true);
    expect(factors.length).toBeGreaterThanOrEqual(2);
    expect(new Set(factors)).toEqual(new Set(['1.2']));
  });

  it("leaves V8's own factor without it, and with the user's flag", () => {
    expect(limitFactors(false)).not.toContain('1.2');
    expect(new Set(limitFactors(true, ['--heap-growing-percent=50']))).toEqual(new Set(['1.5']));
  });
});
