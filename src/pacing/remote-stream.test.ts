import { describe, expect, it } from 'vitest';
import type { ToPacer } from './messages.js';
import { RemoteSocket } from './remote-socket.js';
import { RemoteStream, type SentFrame } from './remote-stream.js';

const timingOf = (id: number, state: 'playing' | 'completed' | 'cancelled', first: number | null) => ({
  id,
  label: null,
  state,
  sampleRate: 16000,
  samplesTotal: 640,
  samplesSent: 640,
  firstFrameDueMs: first,
  lastFrameDueMs: first,
  firstSentMs: first,
  lastSentMs: first,
  utteranceStartMs: first,
  utteranceEndMs: first,
});

describe('RemoteStream', () => {
  it('sends a copy of each utterance ahead, rebuilds the frames reported back, and resolves the utterance as reported', async () => {
    const posted: ToPacer[] = [];
    const frames: SentFrame[] = [];
    const s = new RemoteStream(
      3,
      { sampleRate: 16000, label: 'a', onFrame: (f) => frames.push({ ...f, samples: f.samples.slice() }) },
      20,
      (m) => posted.push(m),
    );
    const samples = Int16Array.from({ length: 640 }, (_, i) => i + 1);
    const u = s.enqueue(samples, { label: 'q' });
    const sent = posted[0] as Extract<ToPacer, { t: 'enqueue' }>;
    expect(sent).toMatchObject({ t: 'enqueue', stream: 3, utt: 1, label: 'q' });
    expect(sent.samples).not.toBe(samples);
    expect(Array.from(sent.samples)).toEqual(Array.from(samples));

    s.onFrame(0, 100, 100.2, 0);
    s.onFrame(1, 120, 120.1, 1);
    s.onFrame(2, 140, 140.3, 1);
    expect(frames.map((f) => [f.index, f.speech, f.samples[0]])).toEqual([
      [0, false, 0],
      [1, true, 1],
      [2, true, 321],
    ]);
    expect(s.frameRecords().map((r) => r.sentMs)).toEqual([100.2, 120.1, 140.3]);
    expect(s.stats().lateness.maxMs).toBeCloseTo(0.3, 6);

    s.onUtterance(1, 'started', timingOf(9, 'playing', 120), null);
    expect((await u.started).firstFrameDueMs).toBe(120);
    s.onUtterance(1, 'finished', timingOf(9, 'completed', 120), null);
    const done = await u.finished;
    expect(done.state).toBe('completed');
    expect(done.id).toBe(1);
    u.cancel(); // finished: nothing to cancel
    expect(posted).toHaveLength(1);
  });

  it('ends with the pacer thread: queued utterances cancelled, later ones refused at once', async () => {
    const posted: ToPacer[] = [];
    const s = new RemoteStream(1, { sampleRate: 16000, label: 'a' }, 20, (m) => posted.push(m));
    const u = s.enqueue(new Int16Array(320));
    u.cancel();
    expect(posted[1]).toEqual({ t: 'cancel', stream: 1, utt: 1 });
    s.onEnded(null, null);
    expect((await u.finished).state).toBe('cancelled');
    expect((await s.ended).end).toEqual({ reason: 'pacer_closed' });
    expect((await s.enqueue(new Int16Array(320)).started).state).toBe('cancelled');
    expect(posted).toHaveLength(2);
  });

  it('an aborted signal stops the stream as aborted', () => {
    const posted: ToPacer[] = [];
    const abort = new AbortController();
    new RemoteStream(1, { sampleRate: 16000, label: 'a', signal: abort.signal }, 20, (m) => posted.push(m));
    abort.abort();
    expect(posted).toEqual([{ t: 'stop', stream: 1, reason: 'aborted' }]);
  });
});

describe('RemoteSocket', () => {
  it('opens, relays sends, emits inbound frames with their arrival time, and closes', () => {
    const posted: ToPacer[] = [];
    let closed = 0;
    const sock = new RemoteSocket(
      5,
      (m) => posted.push(m),
      () => closed++,
    );
    const cb: Array<Error | undefined> = [];
    sock.send('early', { binary: false }, (e) => cb.push(e));
    expect(cb[0]?.message).toMatch(/not open/);
    sock.deliver({ t: 'open', sock: 5 });
    expect(sock.readyState).toBe(1);
    sock.send('hi', { binary: false }, (e) => cb.push(e));
    expect(posted).toEqual([{ t: 'send', sock: 5, payload: 'hi' }]);
    const got: Array<[string, boolean, number | undefined]> = [];
    sock.on('message', (data, isBinary, at) => got.push([Buffer.from(data as Buffer).toString(), isBinary, at]));
    sock.deliver({ t: 'message', sock: 5, data: new TextEncoder().encode('{"a":1}'), isBinary: false, at: 42.5 });
    expect(got).toEqual([['{"a":1}', false, 42.5]]);
    const closes: Array<[number, string]> = [];
    sock.once('close', (code, reason) => closes.push([code, reason.toString()]));
    sock.close(1000, 'bye');
    expect(sock.readyState).toBe(2);
    expect(posted[1]).toEqual({ t: 'close', sock: 5, code: 1000, reason: 'bye' });
    sock.deliver({ t: 'close', sock: 5, code: 1000, reason: 'bye' });
    expect(sock.readyState).toBe(3);
    expect(closes).toEqual([[1000, 'bye']]);
    expect(closed).toBe(1);
    sock.drop(); // already closed: nothing more
    expect(closes).toHaveLength(1);
  });
  it("passes an utterance's voiced span on to the pacer thread (the clean voice's, under channel noise)", () => {
    const posted: ToPacer[] = [];
    const s = new RemoteStream(4, { sampleRate: 16000, label: 'v', onFrame: () => undefined }, 20, (m) =>
      posted.push(m),
    );
    s.enqueue(new Int16Array(640), { label: 'noisy', voiced: { first: 100, end: 500 } });
    s.enqueue(new Int16Array(640), { label: 'plain' });
    const [noisy, plain] = posted as Array<Extract<ToPacer, { t: 'enqueue' }>>;
    expect(noisy.voiced).toEqual({ first: 100, end: 500 });
    expect('voiced' in plain).toBe(false);
  });
});
