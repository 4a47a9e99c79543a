// A bot that fails to start: the reference bot refuses an unknown fault switch and exits 2 before listening.
import { runRefbot } from './launch.mjs';

await runRefbot(['--fault', 'no-such-fault']);
