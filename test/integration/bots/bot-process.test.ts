import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BotProcess, describeExit, readTail } from '../../../src/bots/bot-process.js';
import { PortAllocator } from '../../../src/bots/ports.js';

/** Real subprocesses: small Node programs standing in for bots with each behaviour. */
const dir = mkdtempSync(join(tmpdir(), 'earshot-botproc-'));
const ports = new PortAllocator(24000);
const started: BotProcess[] = [];
afterEach(() => {
  for (const bot of started.splice(0)) bot.killNow();
  ports.releaseAll();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function bot(name: string, source: string, args: string[] = []): BotProcess {
  const script = join(dir, `${name}.mjs`);
  writeFileSync(script, source);
  const b = BotProcess.spawn({ command: process.execPath, args: [script, ...args], logFile: join(dir, `${name}.log`) });
  started.push(b);
  return b;
}

const LISTENER = `
import { createServer } from 'node:net';
const port = Number(process.argv[2]);
const delay = Number(process.argv[3] ?? 0);
console.log('starting');
setTimeout(() => createServer().listen(port, '127.0.0.1', () => console.log('listening on', port)), delay);
`;

/** Running, not a zombie: an orphan's zombie lingers until PID 1 reaps it, which some containers never do. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('BotProcess', () => {
  it('is ready once its port accepts connections, and SIGTERM stops it when it does not leave by itself', async () => {
    const port = await ports.acquire();
    const b = bot('listener', LISTENER, [String(port), '300']);
    const ready = await b.waitReady({ host: 'localhost', port, timeoutMs: 10_000 });
    expect(ready).toMatchObject({ ready: true });
    expect(ready.afterMs).toBeGreaterThanOrEqual(250);
    const stopped = await b.stop({ graceMs: 200, termGraceMs: 5000 });
    expect(stopped).toMatchObject({ how: 'SIGTERM', exit: { signal: 'SIGTERM' }, strays: false });
    expect(readFileSync(b.logFile, 'utf8')).toContain(`listening on ${port}`);
  });

  it('reports a bot that exits before listening at once, with its exit code and the tail of its log', async () => {
    const port = await ports.acquire();
    const b = bot(
      'crash',
      `console.log('loading'); console.error('fatal: OPENAI_API_KEY is not set'); process.exit(3);`,
    );
    const t0 = performance.now();
    const ready = await b.waitReady({ host: '127.0.0.1', port, timeoutMs: 20_000 });
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(ready).toMatchObject({ ready: false, why: 'exited', exit: { code: 3, signal: null } });
    if (!ready.ready && ready.why === 'exited') expect(describeExit(ready.exit)).toBe('exited with code 3');
    expect(b.logTail()).toBe('loading\nfatal: OPENAI_API_KEY is not set');
  });

  it('times out a bot that runs but never listens', async () => {
    const port = await ports.acquire();
    const b = bot('silent', `setInterval(() => {}, 1000);`);
    const ready = await b.waitReady({ host: '127.0.0.1', port, timeoutMs: 600 });
    expect(ready).toMatchObject({ ready: false, why: 'timeout' });
    expect(ready.afterMs).toBeGreaterThanOrEqual(600);
    expect(ready.afterMs).toBeLessThan(3000);
  });

  it('reports a program that cannot be started without throwing', async () => {
    const b = BotProcess.spawn({ command: 'earshot-no-such-program', args: [], logFile: join(dir, 'missing.log') });
    const ready = await b.waitReady({ host: '127.0.0.1', port: 1, timeoutMs: 5000 });
    expect(ready).toMatchObject({ ready: false, why: 'exited' });
    if (!ready.ready && ready.why === 'exited') expect(describeExit(ready.exit)).toMatch(/^could not start: .*ENOENT/);
    await b.exited;
    await new Promise((r) => setTimeout(r, 50));
    expect(b.logTail()).toMatch(/could not start earshot-no-such-program/);
  });

  it('lets a bot that leaves by itself go without a signal', async () => {
    const b = bot('leaves', `setTimeout(() => process.exit(0), 200);`);
    const stopped = await b.stop({ graceMs: 5000, termGraceMs: 5000 });
    expect(stopped).toEqual({ how: 'exited', exit: { code: 0, signal: null }, strays: false });
  });

  it('escalates to SIGKILL when the bot ignores SIGTERM', async () => {
    const port = await ports.acquire();
    const b = bot('stubborn', `process.on('SIGTERM', () => console.log('ignoring SIGTERM'));${LISTENER}`, [
      String(port),
    ]);
    expect(await b.waitReady({ host: '127.0.0.1', port, timeoutMs: 10_000 })).toMatchObject({ ready: true });
    const t0 = performance.now();
    const stopped = await b.stop({ graceMs: 100, termGraceMs: 300 });
    expect(stopped).toMatchObject({ how: 'SIGKILL', exit: { signal: 'SIGKILL' } });
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(b.logTail()).toContain('ignoring SIGTERM');
  });

  it('stops what the bot started too: its whole process group', async () => {
    const pidFile = join(dir, 'grandchild.pid');
    const b = bot(
      'parent',
      `import { spawn } from 'node:child_process';
       import { writeFileSync } from 'node:fs';
       const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
       writeFileSync(${JSON.stringify(pidFile)}, String(c.pid));
       setTimeout(() => process.exit(0), 300);`,
    );
    const stopped = await b.stop({ graceMs: 5000, termGraceMs: 1000 });
    expect(stopped).toMatchObject({ how: 'exited', strays: true });
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    await new Promise((r) => setTimeout(r, 200));
    expect(alive(grandchild)).toBe(false);
  });

  it('stops waiting for readiness when the run is aborted', async () => {
    const port = await ports.acquire();
    const b = bot('slowstart', LISTENER, [String(port), '60000']);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('interrupted')), 200);
    await expect(
      b.waitReady({ host: '127.0.0.1', port, timeoutMs: 30_000, signal: controller.signal }),
    ).rejects.toThrow('interrupted');
  });
});

describe('readTail', () => {
  it('keeps the last lines, drops colours and a cut first line, and caps the length', () => {
    const file = join(dir, 'tail.log');
    writeFileSync(file, `${'x'.repeat(9000)}\nline 1\n\u001b[31mline 2\u001b[0m\r\nline 3\n\n`);
    expect(readTail(file, 2, 2000)).toBe('line 2\nline 3');
    expect(readTail(file, 10, 2000)).toBe('line 1\nline 2\nline 3');
    expect(readTail(file, 10, 10)).toBe('…e 2\nline 3');
    expect(readTail(join(dir, 'none.log'), 5, 100)).toBe('');
  });
});

describe('bot logs', () => {
  it('mask the secrets a bot prints, even split across writes, and keep its last lines after it exits', async () => {
    const secret = 'sk-very-secret-0123456789';
    const script = join(dir, 'leaky.mjs');
    writeFileSync(
      script,
      `process.stdout.write('key=' + process.env.LEAKY_API_KEY.slice(0, 8));
       setTimeout(() => { process.stdout.write(process.env.LEAKY_API_KEY.slice(8) + '\\n'); console.error('bye'); process.exit(3); }, 50);`,
    );
    const b = BotProcess.spawn({
      command: process.execPath,
      args: [script],
      logFile: join(dir, 'leaky.log'),
      env: { ...process.env, LEAKY_API_KEY: secret },
    });
    started.push(b);
    expect(await b.exited).toMatchObject({ code: 3 });
    const log = readFileSync(join(dir, 'leaky.log'), 'utf8');
    expect(log).not.toContain(secret.slice(4));
    expect(log).toContain('key=[redacted]');
    expect(readTail(join(dir, 'leaky.log'), 1, 100)).toBe('bye');
  });
});
