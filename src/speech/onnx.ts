import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DependencyMissingError, SpeechConfigError } from './errors.js';

/**
 * What the transformers.js-based providers (whisper, moonshine, kokoro) share:
 * local-only loading and the choice of ONNX Runtime execution provider.
 *
 * @huggingface/transformers keeps its settings in one process-wide `env`
 * object. earshot only ever writes the same values to it (local files only,
 * no hub, no download cache) and names models by absolute path, so loads from
 * two model stores in one process cannot see each other's settings.
 */

export type OnnxDevice = 'cpu' | 'cuda';
export const ONNX_DEVICES: readonly OnnxDevice[] = ['cpu', 'cuda'];

type Transformers = typeof import('@huggingface/transformers');

/** Loaded on first use: importing it loads onnxruntime-node's native binding. */
export async function loadTransformers(modelsDir: string): Promise<Transformers> {
  const transformers = await import('@huggingface/transformers');
  const env = transformers.env;
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.useFSCache = false;
  env.useBrowserCache = false;
  env.localModelPath = modelsDir.endsWith('/') ? modelsDir : `${modelsDir}/`;
  return transformers;
}

export interface CudaSupport {
  available: boolean;
  /** Why not, when not. */
  reason?: string;
}

/**
 * onnxruntime-node ships its CUDA execution provider only for Linux x64, and
 * only after its install script downloaded the provider library from GitHub
 * (skipped offline with ONNXRUNTIME_NODE_INSTALL_CUDA=skip). The library's
 * presence is the test; CUDA 12 and cuDNN 9 must also be on the system, which
 * only creating a session can prove.
 */
export function cudaSupport(platform: string = process.platform, arch: string = process.arch): CudaSupport {
  if (platform !== 'linux' || arch !== 'x64') {
    return { available: false, reason: `onnxruntime-node has no CUDA build for ${platform}-${arch}` };
  }
  const lib = join(onnxruntimeBinDir(platform, arch), 'libonnxruntime_providers_cuda.so');
  if (!existsSync(lib)) {
    return {
      available: false,
      reason: `${lib} is not installed (onnxruntime-node skipped its CUDA download)`,
    };
  }
  return { available: true };
}

export function onnxruntimeBinDir(platform: string = process.platform, arch: string = process.arch): string {
  const main = createRequire(import.meta.url).resolve('onnxruntime-node');
  // .../onnxruntime-node/dist/index.js → package root
  return join(dirname(dirname(main)), 'bin', 'napi-v3', platform, arch);
}

export function checkDevice(provider: string, device: unknown): OnnxDevice {
  if (device === undefined) return 'cpu';
  if (!ONNX_DEVICES.includes(device as OnnxDevice)) {
    throw new SpeechConfigError(
      provider,
      'device',
      `expected one of ${ONNX_DEVICES.join(', ')}, got ${JSON.stringify(device)}`,
    );
  }
  if (device === 'cuda') {
    const cuda = cudaSupport();
    if (!cuda.available) {
      throw new DependencyMissingError(
        `CUDA for ${provider}`,
        `${cuda.reason}; reinstall it with network access: ` +
          'ONNXRUNTIME_NODE_INSTALL_CUDA=v12 npm rebuild onnxruntime-node (needs CUDA 12 and cuDNN 9), ' +
          'or use device cpu',
      );
    }
  }
  return device as OnnxDevice;
}
