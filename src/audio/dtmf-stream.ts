import { checkSampleRate } from './errors.js';
import { classifyDtmfBlock } from './dtmf.js';
import { dbfsToAmplitude, samplesForMs } from './pcm.js';

/**
 * A streaming DTMF receiver: the Goertzel classification of `detectDtmf`,
 * fed chunk by chunk (any chunk size), for a bot that listens for keypad
 * tones in its incoming audio. A key is reported once it has held for
 * `minToneMs` (two 20 ms blocks by default), and the same key again only
 * after a block without it, as a telephone exchange does.
 */
export interface DtmfReceiverOptions {
  sampleRate: number;
  /** Shortest tone that counts (default 40 ms, Q.24's minimum). */
  minToneMs?: number;
  /** Each of the two tones must be at least this loud (peak, default -35 dBFS). */
  minLevelDbfs?: number;
}

export class DtmfReceiver {
  readonly sampleRate: number;
  private readonly block: Int16Array;
  private filled = 0;
  private readonly needBlocks: number;
  private readonly minAmp: number;
  private current: string | null = null;
  private run = 0;
  private reported = false;

  constructor(options: DtmfReceiverOptions) {
    checkSampleRate(options.sampleRate);
    this.sampleRate = options.sampleRate;
    this.block = new Int16Array(samplesForMs(20, options.sampleRate));
    this.needBlocks = Math.max(1, Math.floor((options.minToneMs ?? 40) / 20));
    this.minAmp = dbfsToAmplitude(options.minLevelDbfs ?? -35);
  }

  /** Feeds samples; returns the keys that completed in them, in order. */
  push(pcm: Int16Array): string[] {
    const keys: string[] = [];
    let at = 0;
    while (at < pcm.length) {
      const n = Math.min(this.block.length - this.filled, pcm.length - at);
      this.block.set(pcm.subarray(at, at + n), this.filled);
      this.filled += n;
      at += n;
      if (this.filled < this.block.length) break;
      this.filled = 0;
      const key = classifyDtmfBlock(this.block, this.sampleRate, 0, this.block.length, this.minAmp);
      if (key !== null && key === this.current) this.run++;
      else {
        this.current = key;
        this.run = key === null ? 0 : 1;
        this.reported = false;
      }
      if (this.current !== null && !this.reported && this.run >= this.needBlocks) {
        keys.push(this.current);
        this.reported = true;
      }
    }
    return keys;
  }
}
