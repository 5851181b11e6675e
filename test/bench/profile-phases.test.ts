/** The profile read by phase (bench/profile-phases.ts): each sample to the nearest frame of ours, leaf up. */
import { OUTSIDE, comparison, phaseTimes, type Profile } from '../../bench/profile-phases';

const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });

function sampleProfile(): Profile {
  return {
    startTime: 100,
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 5, 7, 8] },
      {
        id: 2,
        callFrame: frame('applyChild', 'file:///x/dist/controller/reconcile/apply.js'),
        children: [3],
      },
      { id: 3, callFrame: frame('stringify', ''), children: [] },
      { id: 5, callFrame: frame('parseEvent', 'file:///x/dist/controller/kube/watch.js'), children: [6] },
      { id: 6, callFrame: frame('parse', ''), children: [] },
      { id: 7, callFrame: frame('(idle)'), children: [] },
      { id: 8, callFrame: frame('runMicrotasks'), children: [] },
    ],
    samples: [3, 3, 6, 7, 8],
    timeDeltas: [10, 20, 40, 1000, 5],
  };
}

it('keeps, in a window, only the samples taken within it (on the profile clock)', () => {
  // The samples end at 110, 130, 170, 1170 and 1175 µs.
  const { total, phases } = phaseTimes(sampleProfile(), [120, 180]);
  expect(total).toBe(60);
  expect(Object.fromEntries(phases)).toEqual({ 'apply (compare, write)': 20, 'watches and caches': 40 });
  expect(phaseTimes(sampleProfile(), [1171, 2000]).phases.get(OUTSIDE)).toBe(5);
});

it('gives a library call to the phase that made it, idle to none, and the rest to outside', () => {
  const profile = sampleProfile();
  const { total, phases } = phaseTimes(profile);
  expect(total).toBe(75);
  expect(Object.fromEntries(phases)).toEqual({
    'apply (compare, write)': 30,
    'watches and caches': 40,
    [OUTSIDE]: 5,
  });
});

it('sets two profiles side by side, phase by phase, with the change', () => {
  const seconds = (deltas: number[]) => deltas.map((d) => d * 100_000); // 10 µs -> 1 s
  const before = phaseTimes({ ...sampleProfile(), timeDeltas: seconds([10, 20, 40, 1000, 5]) });
  const after = phaseTimes({
    ...sampleProfile(),
    samples: [3, 6, 7, 8],
    timeDeltas: seconds([10, 40, 1000, 5]),
  });
  expect(comparison(before, after).split('\n')).toEqual([
    '| phase | before, s | after, s | change |',
    '| --- | ---: | ---: | ---: |',
    '| watches and caches | 4.00 | 4.00 | +0 % |',
    '| apply (compare, write) | 3.00 | 1.00 | -67 % |',
    `| ${OUTSIDE} | 0.50 | 0.50 | +0 % |`,
    '| total | 7.50 | 5.50 | -27 % |',
    '',
  ]);
});
