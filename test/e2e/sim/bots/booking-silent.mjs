// The booking bot that stops answering after its first reply (the silence cap's case).
import { fileURLToPath } from 'node:url';
import { runRefbot } from '../../../suite/bots/launch.mjs';

await runRefbot([
  '--brain',
  fileURLToPath(new URL('../brain-booking.yaml', import.meta.url)),
  '--fault',
  'hang-after-turn=1',
]);
