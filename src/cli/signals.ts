/**
 * SIGINT/SIGTERM during a run abort it; the run keeps what is finished and the
 * process exits 130 / 143 like a shell would report the signal. A second
 * signal exits at once.
 */
export function abortOnSignals(): { signal: AbortSignal; exitCode: () => number | null; dispose: () => void } {
  const controller = new AbortController();
  let code: number | null = null;
  const handler = (name: NodeJS.Signals): void => {
    if (code !== null) process.exit(code);
    code = name === 'SIGINT' ? 130 : 143;
    process.stderr.write(`\nearshot: ${name}: stopping; finished results are kept (send again to exit now)\n`);
    controller.abort(new Error(`interrupted by ${name}`));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    exitCode: () => code,
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
