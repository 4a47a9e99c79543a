import { entry, type YMap } from './ynode.js';

/**
 * Whether a top-level mapping is an AMD GAIA scenario. GAIA's files have an `id:` (Pipecat's never do: they name
 * themselves with `name:`), a `setup:` and turns with `objective:` and `turn:` (Pipecat's turns have `user:` and
 * `expect:`). So: no `scenarios:` or `suite:`, and either `id:` with `setup:` or a GAIA turn, or (an `id:` forgotten)
 * `setup:` with a GAIA turn, which still reads best as GAIA's format with its `id:` missing.
 */
export function isGaiaShape(doc: YMap): boolean {
  if (entry(doc, 'scenarios') || entry(doc, 'suite')) return false;
  const setup = entry(doc, 'setup') !== undefined;
  const gaiaTurn = hasGaiaTurn(doc);
  if (entry(doc, 'id')) return setup || gaiaTurn;
  return setup && gaiaTurn;
}

function hasGaiaTurn(doc: YMap): boolean {
  const turns = entry(doc, 'turns')?.value;
  if (turns?.kind !== 'seq') return false;
  return turns.items.some((t) => t.kind === 'map' && (entry(t, 'objective') || entry(t, 'turn')) !== undefined);
}
