/**
 * bench:peer's table: a column per configuration that ran, each peer's followed by reconstruct's ratio to
 * it, medians over a column's runs; and its --peers flag.
 */
import { type PeerRun, peerTable } from '../../bench/controller/peer-report';
import { peerSettings, runSettings } from '../../bench/controller/peer-settings';

const run = (column: PeerRun['column'], seconds: number, workers = 1): PeerRun => ({
  count: 500,
  column,
  controller: column,
  workers,
  results: { count: 500, workers, controllerAppliedSeconds: seconds, writesPerResource: seconds * 2 },
});

const rowOf = (table: string, label: string) =>
  table
    .split('\n')
    .find((l) => l.startsWith(`| ${label}`))
    ?.split('|')
    .slice(2, -1)
    .map((c) => c.trim());

describe('the bench:peer table', () => {
  it('gives every peer that ran a column and reconstruct’s ratio to it, medians of the runs', () => {
    const runs = [
      run('reconstruct', 4, 4),
      run('reconstruct', 6, 4),
      run('reconstruct', 5, 4),
      run('peer', 10),
      run('kro', 20),
      run('kroTuned', 16, 4),
    ];
    const table = peerTable(500, runs, 60);
    const header = table.split('\n')[0];
    expect(header).toContain('reconstruct (4 workers, median of 3)');
    expect(header).toContain('Go peer (1 worker)');
    expect(header).toContain('kro (1 worker)');
    expect(header).toContain('kro, 4 workers, QPS 1000');
    expect(header).not.toContain('Go peer, '); // the Go peer's tuned run did not run
    expect(rowOf(table, 'time to the last Deployment')).toEqual([
      '5.00 s',
      '10.00 s',
      '0.50',
      '20.00 s',
      '0.25',
      '16.00 s',
      '0.31',
    ]);
    expect(rowOf(table, 'API writes per resource')?.slice(0, 3)).toEqual(['10.00', '20.00', '0.50']);
    // A figure none of them gave: no value, no ratio.
    expect(rowOf(table, 'peak RSS')).toEqual(['n/a', 'n/a', '-', 'n/a', '-', 'n/a', '-']);
  });
});

describe('bench:peer flags', () => {
  const settings = (...args: string[]) => peerSettings(args);

  it('runs against both peers by default, or those named', () => {
    expect(settings()?.peers).toEqual(['go', 'kro']);
    expect(settings('--peers', 'kro')?.peers).toEqual(['kro']);
    // reconstruct itself over HTTP/1.1, as a column beside the others, only when asked for.
    expect(settings('--peers', 'go,http1')?.peers).toEqual(['go', 'http1']);
  });

  it('takes the size of the resources and whether the peers run tuned only', () => {
    expect(settings()).toMatchObject({ size: 1, tunedOnly: false, overheadOnly: false });
    expect(settings('--size', '0', '--tuned-only', '--overhead-only')).toMatchObject({
      size: 0,
      tunedOnly: true,
      overheadOnly: true,
    });
    expect(runSettings(settings('--overhead-only')!, 10_000, 4, 'ns')).toMatchObject({
      count: 10_000,
      overheadOnly: true,
    });
    expect(() => settings('--size=-1')).toThrow('--size: "-1" is not an integer >= 0');
  });

  it('names the peers there are when given one that is not', () => {
    expect(() => settings('--peers', 'go,crossplane')).toThrow(
      "--peers: 'crossplane' is not a peer (they are: go, kro, http1)",
    );
  });

  it('puts reconstruct over HTTP/1.1 right after reconstruct, with the ratio to it', () => {
    const table = peerTable(500, [run('reconstruct', 5, 4), run('http1', 10, 4), run('peer', 20)], 60);
    expect(table.split('\n')[0]).toContain(
      '| reconstruct (4 workers) | reconstruct over HTTP/1.1 (4 workers) |',
    );
    expect(rowOf(table, 'time to the last Deployment')?.slice(0, 5)).toEqual([
      '5.00 s',
      '10.00 s',
      '0.50',
      '20.00 s',
      '0.25',
    ]);
  });
});
