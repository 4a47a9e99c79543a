import { describe, expect, it } from 'vitest';
import { SpeechQueueFullError } from '../errors.js';
import { WorkerPool, type PoolWorker } from './pool.js';

/**
 * The pool's scheduling with in-memory workers whose jobs finish when the test
 * says so; test/integration/speech/pool.test.ts runs it with real
 * PocketSphinx processes.
 */
class Worker implements PoolWorker {
  alive = true;
  closed = false;
  readonly jobs: { input: string; finish: (out: string) => void; fail: (err: Error) => void }[] = [];
  constructor(readonly id: number) {}
  run(input: string): Promise<string> {
    return new Promise((finish, fail) => this.jobs.push({ input, finish, fail }));
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

function setup(size: number, maxQueue: number) {
  const workers: Worker[] = [];
  const pool = new WorkerPool<Worker>({
    provider: 'test',
    size,
    maxQueue,
    create: async () => {
      const w = new Worker(workers.length + 1);
      workers.push(w);
      return w;
    },
  });
  const ask = (input: string, signal?: AbortSignal): Promise<string> => pool.run((w) => w.run(input), signal);
  return { pool, workers, ask };
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('WorkerPool', () => {
  it('starts workers up to its size, queues the rest in order, and refuses one more than the queue holds', async () => {
    const { pool, workers, ask } = setup(2, 2);
    const calls = ['a', 'b', 'c', 'd'].map((x) => ask(x));
    await expect(ask('e')).rejects.toBeInstanceOf(SpeechQueueFullError);
    await settle();
    expect(workers.map((w) => w.jobs.map((j) => j.input))).toEqual([['a'], ['b']]);
    expect(pool.stats()).toMatchObject({ workers: 2, busy: 2, queued: 2, refused: 1 });
    workers[1].jobs[0].finish('B');
    await settle();
    expect(workers[1].jobs.map((j) => j.input)).toEqual(['b', 'c']);
    workers[0].jobs[0].finish('A');
    workers[1].jobs[1].finish('C');
    await settle();
    workers[0].jobs[1].finish('D');
    expect(await Promise.all(calls)).toEqual(['A', 'B', 'C', 'D']);
    expect(pool.stats()).toMatchObject({ started: 2, busy: 0, queued: 0 });
  });

  it('counts jobs waiting for a worker being started as not queued', async () => {
    const { workers, ask } = setup(1, 0);
    const first = ask('a');
    // The worker is still starting: `a` waits for it, not behind anyone; a second job has no room.
    await expect(ask('b')).rejects.toMatchObject({ kind: 'queue_full', workers: 1, maxQueue: 0 });
    await settle();
    expect(workers[0].jobs.map((j) => j.input)).toEqual(['a']);
    workers[0].jobs[0].finish('A');
    expect(await first).toBe('A');
  });

  it('rejects an aborted caller at once and keeps the worker busy until its job ends', async () => {
    const { pool, workers, ask } = setup(1, 4);
    const controller = new AbortController();
    const running = ask('a', controller.signal);
    const queued = ask('b');
    await settle();
    controller.abort(new Error('turn over'));
    await expect(running).rejects.toThrow('turn over');
    expect(pool.stats()).toMatchObject({ busy: 1, queued: 1 });
    workers[0].jobs[0].finish('ignored');
    await settle();
    workers[0].jobs[1].finish('B');
    expect(await queued).toBe('B');
  });

  it('drops a queued job whose caller aborts', async () => {
    const { pool, workers, ask } = setup(1, 4);
    const controller = new AbortController();
    const first = ask('a');
    const second = ask('b', controller.signal);
    await settle();
    controller.abort(new Error('gone'));
    await expect(second).rejects.toThrow('gone');
    expect(pool.stats().queued).toBe(0);
    workers[0].jobs[0].finish('A');
    expect(await first).toBe('A');
    await settle();
    expect(workers[0].jobs).toHaveLength(1);
  });

  it('replaces a worker that died and runs its job once more on the new one', async () => {
    const { pool, workers, ask } = setup(1, 4);
    const call = ask('a');
    await settle();
    workers[0].alive = false;
    workers[0].jobs[0].fail(new Error('process died'));
    await settle();
    expect(workers).toHaveLength(2);
    expect(workers[0].closed).toBe(true);
    workers[1].jobs[0].finish('A');
    expect(await call).toBe('A');
    expect(pool.stats()).toMatchObject({ started: 2, replaced: 1, workers: 1 });
  });

  it('gives up after the second death, and passes on an error from a live worker without retrying', async () => {
    const { workers, ask } = setup(1, 4);
    const dies = ask('a');
    await settle();
    workers[0].alive = false;
    workers[0].jobs[0].fail(new Error('died once'));
    await settle();
    workers[1].alive = false;
    workers[1].jobs[0].fail(new Error('died twice'));
    await expect(dies).rejects.toThrow('died twice');
    const bad = ask('b');
    await settle();
    workers[2].jobs[0].fail(new Error('bad audio'));
    await expect(bad).rejects.toThrow('bad audio');
    expect(workers).toHaveLength(3);
  });

  it('fails the job whose worker cannot start, tries again for the next, and refuses work once closed', async () => {
    let attempts = 0;
    const pool = new WorkerPool<Worker>({
      provider: 'test',
      size: 1,
      create: async () => {
        attempts++;
        if (attempts === 1) throw new Error('model missing');
        return new Worker(attempts);
      },
    });
    await expect(pool.run((w) => w.run('a'))).rejects.toThrow('model missing');
    const next = pool.run(async () => 'ok');
    expect(await next).toBe('ok');
    const [worker] = pool.workersNow();
    await pool.close();
    expect(worker.closed).toBe(true);
    await expect(pool.run(async () => 'late')).rejects.toThrow('test: recognizer pool closed');
  });
});
