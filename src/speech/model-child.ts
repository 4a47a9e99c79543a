/**
 * The child side of model-process.ts: a model module calls `serveModel` with
 * its loader; calls are answered one at a time, in order. The process ends
 * with its parent (the IPC channel closes) or when asked to.
 */
import type { FromModelProcess, ToModelProcess } from './model-process.js';

export interface ServedModel<Request, Result> {
  call(request: Request): Promise<Result>;
  dispose(): Promise<void>;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function serveModel<Load, Request, Result>(load: (data: Load) => Promise<ServedModel<Request, Result>>): void {
  if (!process.send) throw new Error('a model process runs forked (model-process.ts starts it)');
  const post = (m: FromModelProcess<Result>): void => void process.send?.(m);
  let loaded: Promise<ServedModel<Request, Result> | null> = Promise.resolve(null);
  let queue: Promise<void> = Promise.resolve();
  process.on('disconnect', () => process.exit(0));
  process.on('message', (m: ToModelProcess<Load, Request>) => {
    if (m.t === 'load') {
      loaded = load(m.data).then(
        (model) => {
          post({ t: 'ready' });
          return model;
        },
        (err: unknown) => {
          post({ t: 'load_failed', message: message(err) });
          return null;
        },
      );
      return;
    }
    queue = queue.then(async () => {
      const model = await loaded;
      if (m.t === 'close') {
        await model?.dispose();
        process.exit(0);
      }
      if (!model) return;
      try {
        post({ t: 'result', id: m.id, result: await model.call(m.request) });
      } catch (err) {
        post({ t: 'failed', id: m.id, message: message(err) });
      }
    });
  });
}
