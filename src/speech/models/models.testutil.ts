import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { findModel, requiredFiles, type DtypeSpec } from './registry.js';
import type { ModelStore } from './store.js';

/**
 * Puts a model's files in the store with placeholder content: the real
 * weights cannot be downloaded here, so tests drive the loaders up to
 * reading these files (JSON files hold `{}`, ONNX files are not ONNX).
 */
export function placeholderModel(store: ModelStore, name: string, dtype?: DtypeSpec): string[] {
  const model = findModel(name);
  if (!model) throw new Error(`no model ${name}`);
  const files = requiredFiles(model, dtype);
  for (const f of files) {
    const path = join(store.modelDir(model), f);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, f.endsWith('.json') ? '{}' : 'placeholder, not an ONNX graph');
  }
  return files;
}
