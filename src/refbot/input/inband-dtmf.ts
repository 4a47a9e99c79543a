/**
 * `--inband-dtmf`: the reference bot listens for keypad tones in the caller's
 * audio, as a telephony bot behind a PSTN gateway does (no RTVI `dtmf`
 * message there). A Goertzel receiver per connection hears the Q.23 pairs and
 * hands each key to the same aggregator RTVI keys go to, so `123#` becomes
 * one `DTMF: 123#` entry either way.
 */
import { downmix, DtmfReceiver } from '../../audio/index.js';

export class InbandDtmf {
  private receiver: DtmfReceiver | null = null;

  constructor(private readonly onKey: (key: string) => void) {}

  push(pcm: Int16Array, sampleRate: number, numChannels: number): void {
    // A new rate starts a new receiver: its 20 ms blocks are counted in samples.
    if (this.receiver?.sampleRate !== sampleRate) this.receiver = new DtmfReceiver({ sampleRate });
    const mono = numChannels > 1 ? downmix(pcm, numChannels) : pcm;
    for (const key of this.receiver.push(mono)) this.onKey(key);
  }
}
