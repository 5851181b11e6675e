/**
 * A lease held again after it is lost: a member of a ring steps back when it cannot renew its own Lease
 * (its share goes to the others) and stands again, as does the ring's leader for the leader's Lease (its
 * sharder stops meanwhile). A LeaderElector campaigns once; a Campaign makes a new one after each loss,
 * until it is released. A controller that is not sharded does not use it: a lost lease ends the process
 * there, as controller-runtime's does, and a standby takes over.
 */
import type { LeaderElector } from './leader';

export interface CampaignCallbacks {
  /** The lease is held: `again` once it had been lost before. */
  onLeading(again: boolean): void;
  /** The lease is lost (not released). Answers whether to stand again: not while the process stops. */
  onLost(): boolean;
}

/** What a Campaign needs of an elector. */
export type Elector = Pick<LeaderElector, 'run' | 'release'>;

export class Campaign {
  private current?: Elector;
  private led = false;
  private released = false;

  constructor(
    private readonly elector: () => Elector,
    private readonly callbacks: CampaignCallbacks,
  ) {}

  /** Campaigns from now on, in the background. */
  start(): void {
    if (this.released) return;
    const elector = this.elector();
    this.current = elector;
    void elector.run({
      onStartedLeading: () => {
        const again = this.led;
        this.led = true;
        this.callbacks.onLeading(again);
      },
      onStoppedLeading: () => {
        if (this.callbacks.onLost() && !this.released) this.start();
      },
    });
  }

  /** Stops campaigning and hands the lease over, if held (LeaderElector.release). */
  async release(): Promise<void> {
    this.released = true;
    await this.current?.release();
  }
}
