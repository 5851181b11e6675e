/**
 * A Campaign (controller/runtime/campaign.ts): a lease stood for again after each loss, as a member of a
 * ring does when it steps back, until the process stops or releases it.
 */
import { Campaign, type Elector } from '../../../controller/runtime/campaign';
import type { LeaderCallbacks } from '../../../controller/runtime/leader';

/** Electors that lead when told to, and lose when told to: the campaign's own. */
class Electors {
  readonly made: { callbacks?: LeaderCallbacks; released: boolean }[] = [];
  make = (): Elector => {
    const elector = { callbacks: undefined as LeaderCallbacks | undefined, released: false };
    this.made.push(elector);
    return {
      run: (callbacks) => {
        elector.callbacks = callbacks;
        return Promise.resolve();
      },
      release: () => {
        elector.released = true;
        return Promise.resolve();
      },
    };
  };
  lead(i = this.made.length - 1): void {
    this.made[i].callbacks!.onStartedLeading(new AbortController().signal);
  }
  lose(i = this.made.length - 1): void {
    this.made[i].callbacks!.onStoppedLeading();
  }
}

it('leads, steps back when the lease is lost, and stands again with a new elector', () => {
  const electors = new Electors();
  const said: string[] = [];
  const campaign = new Campaign(electors.make, {
    onLeading: (again) => said.push(again ? 'leading again' : 'leading'),
    onLost: () => (said.push('lost'), true),
  });
  campaign.start();
  electors.lead();
  electors.lose();
  expect(electors.made).toHaveLength(2);
  electors.lead();
  expect(said).toEqual(['leading', 'lost', 'leading again']);
});

it('does not stand again when the loss comes as the process stops', () => {
  const electors = new Electors();
  const campaign = new Campaign(electors.make, { onLeading: () => undefined, onLost: () => false });
  campaign.start();
  electors.lead();
  electors.lose();
  expect(electors.made).toHaveLength(1);
});

it('hands the lease over on release and stands no more', async () => {
  const electors = new Electors();
  const campaign = new Campaign(electors.make, { onLeading: () => undefined, onLost: () => true });
  campaign.start();
  electors.lead();
  await campaign.release();
  expect(electors.made[0].released).toBe(true);
  electors.lose(); // a loss racing the release
  expect(electors.made).toHaveLength(1);
});
