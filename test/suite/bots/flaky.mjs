// Deterministically flaky: on odd repeats the reference bot crashes on the first user turn (exit 70).
import { runRefbot } from './launch.mjs';

const odd = Number(process.env.EARSHOT_REPEAT_INDEX ?? 0) % 2 === 1;
await runRefbot(odd ? ['--fault', 'crash-after-turn=0'] : []);
