/**
 * The part of ONNX's `onnx.proto` (IR version 8) a generated model needs,
 * declared through protobufjs reflection with ONNX's own field numbers: a
 * model, its graph, nodes and their attributes (subgraphs included, for
 * `If`), tensors (weights travel as `raw_data`, little-endian) and the typed
 * inputs and outputs. ONNX Runtime parses the bytes; nothing here reads them.
 */
import { createRequire } from 'node:module';
import type { Type } from 'protobufjs/light.js';

const ONNX_SCHEMA = {
  nested: {
    onnx: {
      nested: {
        OperatorSetIdProto: {
          fields: { domain: { type: 'string', id: 1 }, version: { type: 'int64', id: 2 } },
        },
        TensorShapeProto: {
          fields: { dim: { rule: 'repeated', type: 'Dimension', id: 1 } },
          nested: {
            Dimension: {
              oneofs: { value: { oneof: ['dim_value', 'dim_param'] } },
              fields: { dim_value: { type: 'int64', id: 1 }, dim_param: { type: 'string', id: 2 } },
            },
          },
        },
        TypeProto: {
          fields: { tensor_type: { type: 'Tensor', id: 1 } },
          nested: {
            Tensor: {
              fields: { elem_type: { type: 'int32', id: 1 }, shape: { type: 'TensorShapeProto', id: 2 } },
            },
          },
        },
        ValueInfoProto: {
          fields: { name: { type: 'string', id: 1 }, type: { type: 'TypeProto', id: 2 } },
        },
        TensorProto: {
          fields: {
            dims: { rule: 'repeated', type: 'int64', id: 1 },
            data_type: { type: 'int32', id: 2 },
            name: { type: 'string', id: 8 },
            raw_data: { type: 'bytes', id: 9 },
          },
        },
        AttributeProto: {
          fields: {
            name: { type: 'string', id: 1 },
            f: { type: 'float', id: 2 },
            i: { type: 'int64', id: 3 },
            s: { type: 'bytes', id: 4 },
            t: { type: 'TensorProto', id: 5 },
            g: { type: 'GraphProto', id: 6 },
            floats: { rule: 'repeated', type: 'float', id: 7 },
            ints: { rule: 'repeated', type: 'int64', id: 8 },
            type: { type: 'int32', id: 20 },
          },
        },
        NodeProto: {
          fields: {
            input: { rule: 'repeated', type: 'string', id: 1 },
            output: { rule: 'repeated', type: 'string', id: 2 },
            name: { type: 'string', id: 3 },
            op_type: { type: 'string', id: 4 },
            attribute: { rule: 'repeated', type: 'AttributeProto', id: 5 },
            domain: { type: 'string', id: 7 },
          },
        },
        GraphProto: {
          fields: {
            node: { rule: 'repeated', type: 'NodeProto', id: 1 },
            name: { type: 'string', id: 2 },
            initializer: { rule: 'repeated', type: 'TensorProto', id: 5 },
            doc_string: { type: 'string', id: 10 },
            input: { rule: 'repeated', type: 'ValueInfoProto', id: 11 },
            output: { rule: 'repeated', type: 'ValueInfoProto', id: 12 },
          },
        },
        ModelProto: {
          fields: {
            ir_version: { type: 'int64', id: 1 },
            producer_name: { type: 'string', id: 2 },
            producer_version: { type: 'string', id: 3 },
            doc_string: { type: 'string', id: 6 },
            graph: { type: 'GraphProto', id: 7 },
            opset_import: { rule: 'repeated', type: 'OperatorSetIdProto', id: 8 },
          },
        },
      },
    },
  },
};

/** ONNX's TensorProto.DataType values used here. */
export const ONNX_TYPE = { float: 1, uint8: 2, int8: 3, int32: 6, int64: 7, bool: 9 } as const;
export type OnnxElemType = keyof typeof ONNX_TYPE;

/** ONNX's AttributeProto.AttributeType values used here. */
export const ATTRIBUTE_TYPE = { float: 1, int: 2, string: 3, tensor: 4, graph: 5, floats: 6, ints: 7 } as const;

let modelType: Type | undefined;

function onnxModelType(): Type {
  if (!modelType) {
    // protobufjs/light is CommonJS; createRequire avoids an interop default under tsx and tsc alike.
    const protobuf = createRequire(import.meta.url)('protobufjs/light.js') as typeof import('protobufjs/light.js');
    modelType = protobuf.Root.fromJSON(ONNX_SCHEMA).lookupType('onnx.ModelProto');
  }
  return modelType;
}

/** A plain object in ModelProto's shape (field names as above) → the `.onnx` bytes. */
export function encodeOnnxModel(model: Record<string, unknown>): Uint8Array {
  const type = onnxModelType();
  return type.encode(type.fromObject(model)).finish();
}
