/**
 * A small builder for ONNX graphs: typed inputs and outputs, weights as
 * initializers, nodes with their attributes, subgraphs (the branches of
 * `If`). Value names are made unique per model, so a subgraph can read its
 * parent's values by name, as ONNX's scoping allows.
 */
import { ATTRIBUTE_TYPE, encodeOnnxModel, ONNX_TYPE, type OnnxElemType } from './onnx-proto.js';

/** A dimension: a size, or a symbolic name (`batch`, `sequence`). */
export type Dim = number | string;

export type WeightData = Float32Array | BigInt64Array | Int32Array | Uint8Array | Int8Array;

/** A float attribute, told apart from an integer one. */
export interface FloatAttr {
  float: number;
}
export interface FloatsAttr {
  floats: readonly number[];
}
export type AttrValue = number | readonly number[] | string | FloatAttr | FloatsAttr | GraphBuilder;

interface ValueInfo {
  name: string;
  type: { tensor_type: { elem_type: number; shape: { dim: ({ dim_value: number } | { dim_param: string })[] } } };
}

interface Names {
  next: number;
}

export class GraphBuilder {
  private readonly nodes: Record<string, unknown>[] = [];
  private readonly initializers: Record<string, unknown>[] = [];
  private readonly inputs: ValueInfo[] = [];
  private readonly outputs: ValueInfo[] = [];

  constructor(
    readonly name: string,
    private readonly names: Names = { next: 0 },
  ) {}

  /** A graph input; returns its name. */
  input(name: string, type: OnnxElemType, dims: readonly Dim[]): string {
    this.inputs.push(valueInfo(name, type, dims));
    return name;
  }

  /** Declares `value` as a graph output named `name` (an Identity when the names differ). */
  output(name: string, value: string, type: OnnxElemType, dims: readonly Dim[]): void {
    if (value !== name) this.nodes.push(node('Identity', [value], [name], {}));
    this.outputs.push(valueInfo(name, type, dims));
  }

  /** A weight (initializer); returns its name. */
  weight(prefix: string, data: WeightData, dims: readonly number[]): string {
    const count = dims.reduce((a, b) => a * b, 1);
    if (count !== data.length) throw new Error(`weight ${prefix}: ${data.length} values for shape [${dims}]`);
    const name = this.fresh(prefix);
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    this.initializers.push({ name, dims: [...dims], data_type: elemTypeOf(data), raw_data: bytes });
    return name;
  }

  /** A small int64 constant (shapes, axes, indices). */
  ints(values: readonly number[], dims: readonly number[] = [values.length]): string {
    return this.weight('i64', BigInt64Array.from(values.map((v) => BigInt(v))), dims);
  }

  /** A small float constant; a scalar when `dims` is []. */
  floats(values: readonly number[], dims: readonly number[] = [values.length]): string {
    return this.weight('f32', Float32Array.from(values), dims);
  }

  /** One node with one output; returns the output's name. */
  op(opType: string, inputs: readonly string[], attrs: Record<string, AttrValue> = {}): string {
    return this.opN(opType, inputs, 1, attrs)[0];
  }

  /** One node with `count` outputs. */
  opN(opType: string, inputs: readonly string[], count: number, attrs: Record<string, AttrValue> = {}): string[] {
    const outputs = Array.from({ length: count }, () => this.fresh(opType.toLowerCase()));
    this.nodes.push(node(opType, inputs, outputs, attrs));
    return outputs;
  }

  /** A node in the `com.microsoft` domain (ONNX Runtime's contrib ops). */
  msOp(opType: string, inputs: readonly string[], attrs: Record<string, AttrValue> = {}): string {
    const output = this.fresh(opType.toLowerCase());
    this.nodes.push({ ...node(opType, inputs, [output], attrs), domain: 'com.microsoft' });
    return output;
  }

  /** A subgraph (a branch of `If`) sharing this model's value names. */
  branch(name: string): GraphBuilder {
    return new GraphBuilder(name, this.names);
  }

  toProto(): Record<string, unknown> {
    return {
      name: this.name,
      node: this.nodes,
      initializer: this.initializers,
      input: this.inputs,
      output: this.outputs,
    };
  }

  private fresh(prefix: string): string {
    this.names.next += 1;
    return `${prefix}_${this.names.next}`;
  }
}

export interface ModelOptions {
  /** What the model is, written into the file's doc string. */
  doc: string;
  opset?: number;
}

/** The graph as `.onnx` bytes (IR 8, the default ONNX opset 17 and ONNX Runtime's contrib domain). */
export function encodeModel(graph: GraphBuilder, options: ModelOptions): Uint8Array {
  return encodeOnnxModel({
    ir_version: 8,
    producer_name: 'earshot fixture-models',
    doc_string: options.doc,
    opset_import: [
      { domain: '', version: options.opset ?? 17 },
      { domain: 'com.microsoft', version: 1 },
    ],
    graph: graph.toProto(),
  });
}

function valueInfo(name: string, type: OnnxElemType, dims: readonly Dim[]): ValueInfo {
  const dim = dims.map((d) => (typeof d === 'number' ? { dim_value: d } : { dim_param: d }));
  return { name, type: { tensor_type: { elem_type: ONNX_TYPE[type], shape: { dim } } } };
}

function node(
  opType: string,
  inputs: readonly string[],
  outputs: readonly string[],
  attrs: Record<string, AttrValue>,
): Record<string, unknown> {
  return {
    op_type: opType,
    input: [...inputs],
    output: [...outputs],
    attribute: Object.entries(attrs).map(([name, value]) => attribute(name, value)),
  };
}

function attribute(name: string, value: AttrValue): Record<string, unknown> {
  if (value instanceof GraphBuilder) return { name, type: ATTRIBUTE_TYPE.graph, g: value.toProto() };
  if (typeof value === 'string') return { name, type: ATTRIBUTE_TYPE.string, s: Buffer.from(value) };
  if (typeof value === 'number') return { name, type: ATTRIBUTE_TYPE.int, i: value };
  if (Array.isArray(value)) return { name, type: ATTRIBUTE_TYPE.ints, ints: value };
  if ('float' in value) return { name, type: ATTRIBUTE_TYPE.float, f: value.float };
  if ('floats' in value) return { name, type: ATTRIBUTE_TYPE.floats, floats: [...value.floats] };
  throw new Error(`attribute ${name}: unsupported value`);
}

function elemTypeOf(data: WeightData): number {
  if (data instanceof Float32Array) return ONNX_TYPE.float;
  if (data instanceof BigInt64Array) return ONNX_TYPE.int64;
  if (data instanceof Int32Array) return ONNX_TYPE.int32;
  if (data instanceof Uint8Array) return ONNX_TYPE.uint8;
  return ONNX_TYPE.int8;
}
