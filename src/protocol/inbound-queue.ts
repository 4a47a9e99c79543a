/**
 * A bounded FIFO between a socket and its one reader. A flooding bot must not
 * grow earshot's memory, and a reader must learn what it missed, so when the
 * queue is full (by item count or by bytes) new arrivals are dropped — never
 * items already queued, which keeps order — and an `overflow` marker saying
 * how many were lost, how many bytes, and when, is delivered in their place
 * once there is room again. Closing ends the stream after what is queued.
 */
export interface Overflow {
  kind: 'overflow';
  dropped: number;
  droppedBytes: number;
  /** Arrival times (Clock ms) of the first and last dropped item. */
  firstAt: number;
  lastAt: number;
}

export interface Stamped {
  /** Arrival time on the connection's Clock (ms). */
  at: number;
  /** Size on the wire in bytes. */
  bytes: number;
}

export interface QueueStats {
  queued: number;
  queuedBytes: number;
  delivered: number;
  dropped: number;
  droppedBytes: number;
}

type Waiter<T> = (item: T | null) => void;

export class InboundQueue<T extends Stamped & { kind: string }> {
  private readonly items: Array<T | (Overflow & Stamped)> = [];
  private head = 0;
  private bytes = 0;
  /** Data items queued (markers are not counted against the bound). */
  private count = 0;
  private pending: (Overflow & Stamped) | undefined;
  private readonly waiters: Array<Waiter<T | (Overflow & Stamped)>> = [];
  private ended = false;
  private delivered = 0;
  private droppedTotal = 0;
  private droppedBytesTotal = 0;

  constructor(
    private readonly maxItems: number,
    private readonly maxBytes: number,
  ) {}

  /** Queues `item`; false when it was dropped (queue full) or the queue has ended. */
  push(item: T): boolean {
    if (this.ended) return false;
    // A waiting reader means nothing is queued and no marker is pending.
    const waiter = this.waiters.shift();
    if (waiter) {
      this.delivered++;
      waiter(item);
      return true;
    }
    if (this.count >= this.maxItems || this.bytes + item.bytes > this.maxBytes) {
      this.droppedTotal++;
      this.droppedBytesTotal += item.bytes;
      if (this.pending) {
        this.pending.dropped++;
        this.pending.droppedBytes += item.bytes;
        this.pending.lastAt = item.at;
      } else {
        const at = item.at;
        this.pending = {
          kind: 'overflow',
          dropped: 1,
          droppedBytes: item.bytes,
          firstAt: at,
          lastAt: at,
          at,
          bytes: 0,
        };
      }
      return false;
    }
    if (this.pending) {
      // Room again: the marker takes the place of what was lost, before newer items.
      this.items.push(this.pending);
      this.pending = undefined;
    }
    this.items.push(item);
    this.bytes += item.bytes;
    this.count++;
    return true;
  }

  /** No more items will arrive; readers get what is queued, then null. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const w of this.waiters.splice(0)) w(null);
  }

  /**
   * The next item, or null once the queue has ended and is drained. Aborting
   * rejects with the signal's reason; an item is never lost to an abort (a
   * reader is either handed it or gone before it arrives).
   */
  next(signal?: AbortSignal): Promise<T | (Overflow & Stamped) | null> {
    const item = this.take();
    if (item !== undefined || this.ended) return Promise.resolve(item ?? null);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.waiters.indexOf(waiter);
        if (i !== -1) this.waiters.splice(i, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter<T | (Overflow & Stamped)> = (next) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(next);
      };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Everything queued now, without waiting. */
  drain(): Array<T | (Overflow & Stamped)> {
    const out: Array<T | (Overflow & Stamped)> = [];
    for (let item = this.take(); item !== undefined; item = this.take()) out.push(item);
    return out;
  }

  stats(): QueueStats {
    return {
      queued: this.count,
      queuedBytes: this.bytes,
      delivered: this.delivered,
      dropped: this.droppedTotal,
      droppedBytes: this.droppedBytesTotal,
    };
  }

  private get length(): number {
    return this.items.length - this.head;
  }

  private take(): T | (Overflow & Stamped) | undefined {
    if (this.length === 0) {
      const marker = this.pending;
      this.pending = undefined;
      return marker;
    }
    const item = this.items[this.head];
    this.items[this.head++] = undefined as unknown as T;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    this.bytes -= item.bytes;
    if (item.kind !== 'overflow') {
      this.count--;
      this.delivered++;
    }
    return item;
  }
}
