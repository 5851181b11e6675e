/**
 * The CPU budget's arithmetic: the controller's CPU per item, and the minimal loop's as the benchmark
 * process's CPU in the baseline run less its CPU in the controller's run (creates), or whole (updates).
 */
import { budgetRows, createBudget, updateBudget } from '../../bench/controller/budget';

const results = {
  controllerCpuUntilApplied: { controller: 2.5, benchmark: 0.6, 'kube-apiserver': 9 },
  directCpuUntilApplied: { benchmark: 1.6, 'kube-apiserver': 7 },
  updateCpu: { controller: 0.2, benchmark: 0.05 },
  floorCpu: { benchmark: 0.09 },
};

describe('the CPU budget', () => {
  it('per created resource: the controller against the loop, in milliseconds', () => {
    const b = createBudget(results, 500)!;
    expect(b.controllerMs).toBeCloseTo(5, 6);
    expect(b.loopMs).toBeCloseTo(2, 6);
  });

  it("per single update: the loop's process whole, its patches and watch included", () => {
    const b = updateBudget(results, 20)!;
    expect(b.controllerMs).toBeCloseTo(10, 6);
    expect(b.loopMs).toBeCloseTo(4.5, 6);
  });

  it('never gives the loop less than nothing, and says n/a where a phase did not run', () => {
    const noisy = { ...results, directCpuUntilApplied: { benchmark: 0.5 } };
    expect(createBudget(noisy, 500)?.loopMs).toBe(0);
    expect(updateBudget({ ...results, updateCpu: undefined }, 20)).toBeUndefined();
    expect(budgetRows({ ...results, updateCpu: undefined }, 500, 0)).toEqual([
      ['CPU per created resource: controller / minimal loop', '5.00 / 2.00 ms', "2.50x the loop's"],
      ['CPU per single update: controller / minimal loop', 'n/a', ''],
    ]);
  });
});
