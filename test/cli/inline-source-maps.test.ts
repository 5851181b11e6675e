import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { withoutInlineSourceMap } from '../../cli/inline-source-maps';
import { compileApart, type CompiledModule } from '../support/compiled-apart';

const ROOT = join(__dirname, '../..');
const MAP = '//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozfQ==';

describe('withoutInlineSourceMap', () => {
  it('drops an inline source map on the last line, trailing blank lines and all', () => {
    expect(withoutInlineSourceMap(`"use strict";\nexports.a = 1;\n${MAP}`)).toBe(
      '"use strict";\nexports.a = 1;\n',
    );
    expect(withoutInlineSourceMap(`exports.a = 1;\n${MAP}\n\n`)).toBe('exports.a = 1;\n');
  });

  it('leaves a map in a file of its own, and one that is not on the last line', () => {
    const file = 'exports.a = 1;\n//# sourceMappingURL=a.js.map\n';
    expect(withoutInlineSourceMap(file)).toBe(file);
    const inside = `exports.a = 1;\n${MAP}\nexports.b = 2;\n`;
    expect(withoutInlineSourceMap(inside)).toBe(inside);
  });
});

describe('the CLI loading cdk8s-plus-27', () => {
  // The hook as the CLI's first import installs it, compiled apart: jest's own module loader bypasses
  // require hooks, so this runs in a node of its own.
  let hook: CompiledModule;
  beforeAll(() => {
    hook = compileApart('cli/inline-source-maps.ts');
  });
  afterAll(() => hook.remove());

  const heapAfterLoading = (withHook: boolean, nodeArgs: string[] = []): number => {
    const script =
      "require('cdk8s-plus-27'); global.gc(); global.gc(); process.stdout.write(String(process.memoryUsage().heapUsed))";
    const res = spawnSync(
      process.execPath,
      ['--expose-gc', ...nodeArgs, ...(withHook ? ['-r', hook.file] : []), '-e', script],
      { cwd: ROOT, env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules') }, encoding: 'utf8' },
    );
    expect(res.stderr).toBe('');
    return Number(res.stdout) / 2 ** 20;
  };

  it('holds megabytes less heap without the inline source maps of the dependencies', () => {
    const without = heapAfterLoading(false);
    const withHook = heapAfterLoading(true);
    expect(without - withHook).toBeGreaterThan(2); // 2.9 MB for cdk8s and cdk8s-plus-27
  });

  it('keeps them when node is asked for source maps', () => {
    const without = heapAfterLoading(false, ['--enable-source-maps']);
    const withHook = heapAfterLoading(true, ['--enable-source-maps']);
    expect(Math.abs(without - withHook)).toBeLessThan(1);
  });
});
