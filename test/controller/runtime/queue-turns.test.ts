import { WorkQueue } from '../../../controller/runtime/queue';

describe('WorkQueue groups', () => {
  const groupOf = (key: string) => key.split('-')[0];

  test("a burst of one group's keys does not hold up another group's key: groups take turns", async () => {
    const q = new WorkQueue({ groupOf });
    for (let i = 1; i <= 5; i++) q.add(`zone-${i}`);
    q.add('cache-1');
    q.add('cache-2');
    const order = [];
    while (q.length > 0) order.push(await q.get());
    expect(order).toEqual(['zone-1', 'cache-1', 'zone-2', 'cache-2', 'zone-3', 'zone-4', 'zone-5']);
  });

  test('low-priority keys take turns too, and still only once no normal key waits', async () => {
    const q = new WorkQueue({ groupOf });
    q.add('zone-1', 'low');
    q.add('zone-2', 'low');
    q.add('cache-1', 'low');
    q.add('zone-3');
    const order = [];
    while (q.length > 0) order.push(await q.get());
    expect(order).toEqual(['zone-3', 'zone-1', 'cache-1', 'zone-2']);
  });

  test('a key moved up from low to normal leaves its low group', async () => {
    const q = new WorkQueue({ groupOf });
    q.add('zone-1', 'low');
    q.add('zone-1');
    expect(q.length).toBe(1);
    expect(await q.get()).toBe('zone-1');
    expect(q.length).toBe(0);
  });
});
