/**
 * The main thread's copy of what each frame carried, rebuilt from the pacer
 * thread's report of `(utterance, index)` per frame, so the recording's user
 * channel holds exactly what was sent without the samples crossing back: a
 * speech frame is the next `samplesPerFrame` of its utterance (speech frames
 * are never skipped, and they leave in order), zero-padded at the end; every
 * other frame is silence.
 */
export class FrameReplay {
  private readonly utterances = new Map<number, { samples: Int16Array; offset: number }>();
  private readonly silence: Int16Array;

  constructor(readonly samplesPerFrame: number) {
    this.silence = new Int16Array(samplesPerFrame);
  }

  /** An utterance queued with the main thread's id `utt` (not 0: 0 means silence). */
  add(utt: number, samples: Int16Array): void {
    this.utterances.set(utt, { samples, offset: 0 });
  }

  /** The samples of the next frame sent for `utt` (0: a silence frame). Shared silence: read-only. */
  next(utt: number): Int16Array {
    const u = utt === 0 ? undefined : this.utterances.get(utt);
    if (!u) return this.silence;
    const spf = this.samplesPerFrame;
    let frame = u.samples.subarray(u.offset, u.offset + spf);
    if (frame.length < spf) {
      const padded = new Int16Array(spf);
      padded.set(frame);
      frame = padded;
    }
    u.offset = Math.min(u.offset + spf, u.samples.length);
    return frame;
  }

  /** Samples of `utt` already sent (for tests and stats). */
  offsetOf(utt: number): number | null {
    return this.utterances.get(utt)?.offset ?? null;
  }

  /** The utterance has finished or was cancelled: no more frames carry it. */
  drop(utt: number): void {
    this.utterances.delete(utt);
  }
}
