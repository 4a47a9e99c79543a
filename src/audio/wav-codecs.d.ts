// Types for the two untyped WAV packages, as far as earshot uses them
// (wav-encoder 1.3 and wav-decoder 1.3 by mohayonao; CommonJS, synchronous cores).

declare module 'wav-decoder' {
  interface DecodedAudio {
    sampleRate: number;
    numberOfChannels: number;
    length: number;
    channelData: Float32Array[];
  }
  interface DecodeOptions {
    /** Scale 16-bit samples by 1/32768 both ways (exact round trip with `symmetric` encoding). */
    symmetric?: boolean;
  }
  interface Decode {
    (src: ArrayBuffer | Buffer, opts?: DecodeOptions): Promise<DecodedAudio>;
    sync(src: ArrayBuffer | Buffer, opts?: DecodeOptions): DecodedAudio;
  }
  const decoder: { decode: Decode };
  export default decoder;
}

declare module 'wav-encoder' {
  interface AudioData {
    sampleRate: number;
    channelData: Float32Array[];
  }
  interface EncodeOptions {
    bitDepth?: 8 | 16 | 24 | 32;
    float?: boolean;
    symmetric?: boolean;
  }
  interface Encode {
    (audioData: AudioData, opts?: EncodeOptions): Promise<ArrayBuffer>;
    sync(audioData: AudioData, opts?: EncodeOptions): ArrayBuffer;
  }
  const encoder: { encode: Encode };
  export default encoder;
}
