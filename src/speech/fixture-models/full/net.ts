/**
 * The build context of one full-size graph: where its weights come from
 * (one seeded stream, so a seed always gives the same bytes), how many
 * parameters it has, and whether matrices are stored as fp32 or as ONNX
 * Runtime's dynamic quantization stores them (per-tensor int8 / uint8).
 *
 * A dry net allocates no weights: it only counts them, so a test can check
 * every model's parameter count in milliseconds instead of generating and
 * encoding hundreds of megabytes.
 */
import { seededRandom } from '../../../core/random.js';
import { encodeModel, GraphBuilder } from '../graph.js';

export type Precision = 'fp32' | 'q8';

/** A weight matrix as fp32, or quantized with its scale and zero point (scalar initializers). */
export type Stored =
  | { kind: 'fp32'; name: string }
  | { kind: 'q8'; name: string; scale: string; zero: string; signed: boolean };

/** A dynamically quantized activation: DynamicQuantizeLinear's three outputs. */
export interface QuantizedValue {
  value: string;
  scale: string;
  zero: string;
}

/** A model's graphs by name (none when dry) and its parameter count. */
export interface GraphSet {
  graphs: Record<string, Uint8Array>;
  parameters: number;
}

export class Net {
  readonly g: GraphBuilder;
  /** Parameters created so far (counted in dry nets as in real ones). */
  parameters = 0;
  private readonly random: () => number;
  private readonly quantized = new Map<string, QuantizedValue>();
  private dryNames = 0;

  constructor(
    name: string,
    readonly precision: Precision,
    seed: number,
    readonly dry = false,
  ) {
    this.g = new GraphBuilder(name);
    this.random = seededRandom(seed);
  }

  /** Seeded U(±bound) values: the init every random weight uses, so activations stay finite. */
  uniform(count: number, bound: number): Float32Array {
    const data = new Float32Array(count);
    for (let i = 0; i < count; i++) data[i] = (2 * this.random() - 1) * bound;
    return data;
  }

  /** An fp32 parameter drawn from U(±bound). */
  param(prefix: string, dims: readonly number[], bound: number): string {
    const count = product(dims);
    this.parameters += count;
    if (this.dry) return this.dryName(prefix);
    return this.g.weight(prefix, this.uniform(count, bound), dims);
  }

  /** An fp32 parameter with one value everywhere (a norm's scale of 1, a shift of 0). */
  filled(prefix: string, dims: readonly number[], value: number): string {
    const count = product(dims);
    this.parameters += count;
    return this.constant(prefix, dims, value);
  }

  /** A constant that is not a parameter (a fixed DFT basis, a norm without affine terms). */
  constant(prefix: string, dims: readonly number[], value: number | Float32Array): string {
    if (this.dry) return this.dryName(prefix);
    const data = typeof value === 'number' ? new Float32Array(product(dims)).fill(value) : value;
    return this.g.weight(prefix, data, dims);
  }

  /**
   * A matrix parameter as this net's precision stores it. q8 draws the same
   * fp32 values first, so fp32 and q8 graphs of one seed hold the same model.
   * `signed`: int8 with zero point 0 (MatMulInteger, Gather); unsigned: uint8
   * around 128, the one weight type ONNX Runtime's CPU ConvInteger accepts.
   */
  matrix(prefix: string, dims: readonly number[], bound: number, signed = true): Stored {
    if (this.precision === 'fp32') return { kind: 'fp32', name: this.param(prefix, dims, bound) };
    const count = product(dims);
    this.parameters += count;
    if (this.dry) {
      const name = this.dryName(prefix);
      return { kind: 'q8', name, scale: name, zero: name, signed };
    }
    const values = this.uniform(count, bound);
    let maxAbs = 0;
    for (const v of values) maxAbs = Math.max(maxAbs, Math.abs(v));
    const scale = maxAbs > 0 ? maxAbs / 127 : 1;
    const offset = signed ? 0 : 128;
    const data = signed ? new Int8Array(count) : new Uint8Array(count);
    for (let i = 0; i < count; i++) data[i] = Math.round(values[i] / scale) + offset;
    return {
      kind: 'q8',
      name: this.g.weight(`${prefix}_quantized`, data, dims),
      scale: this.g.floats([scale], []),
      zero: this.g.weight(`${prefix}_zero_point`, signed ? Int8Array.of(0) : Uint8Array.of(offset), []),
      signed,
    };
  }

  /**
   * `x` as DynamicQuantizeLinear makes it (uint8, scale, zero point), once per
   * value and graph: ONNX Runtime's quantizer also quantizes a shared input
   * (the q, k and v projections' one activation) a single time.
   */
  quantize(b: GraphBuilder, x: string): QuantizedValue {
    const key = `${b.name}/${x}`;
    let q = this.quantized.get(key);
    if (!q) {
      const [value, scale, zero] = b.opN('DynamicQuantizeLinear', [x], 3);
      q = { value, scale, zero };
      this.quantized.set(key, q);
    }
    return q;
  }

  private dryName(prefix: string): string {
    this.dryNames += 1;
    return `dry_${prefix}_${this.dryNames}`;
  }
}

export function product(dims: readonly number[]): number {
  return dims.reduce((a, b) => a * b, 1);
}

/** A speech seq2seq model's two graphs, encoded unless `dry` (then only counted). */
export function seq2seqGraphs(name: string, precision: Precision, encoder: Net, decoder: Net, dry: boolean): GraphSet {
  const doc = `earshot full-size fixture: ${name} architecture, seeded random weights (${precision})`;
  return {
    parameters: encoder.parameters + decoder.parameters,
    graphs: dry
      ? {}
      : { encoder_model: encodeModel(encoder.g, { doc }), decoder_model_merged: encodeModel(decoder.g, { doc }) },
  };
}
