import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { canListen, isPortFree, NoFreePortError, PortAllocator } from './ports.js';

const locks = mkdtempSync(join(tmpdir(), 'earshot-portlocks-'));
afterAll(() => rmSync(locks, { recursive: true, force: true }));
const free = { probe: async () => true, lockDir: null };

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

function listen(port: number, host?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen({ port, host }, () => {
      servers.push(s);
      const a = s.address();
      resolve(typeof a === 'object' && a ? a.port : port);
    });
  });
}

describe('isPortFree', () => {
  it('sees a listener on the loopback address and one on the wildcard', async () => {
    const loopback = await listen(0, '127.0.0.1');
    expect(await isPortFree(loopback)).toBe(false);
    const wildcard = await listen(0);
    expect(await isPortFree(wildcard)).toBe(false);
  });

  it('finds a port nothing holds free, and leaves it free', async () => {
    const port = await listen(0, '127.0.0.1');
    await new Promise((r) => servers.pop()!.close(r));
    expect(await isPortFree(port)).toBe(true);
    expect(await canListen(port, '127.0.0.1')).toBe(true);
  });
});

describe('PortAllocator', () => {
  it('starts at base_port and skips ports something else holds', async () => {
    const taken = await listen(0, '127.0.0.1');
    const ports = new PortAllocator(taken, { lockDir: null });
    const got = await ports.acquire();
    expect(got).toBeGreaterThan(taken);
    expect(await isPortFree(got)).toBe(true);
  });

  it('never hands out the same port twice while it is reserved, even to concurrent callers', async () => {
    const ports = new PortAllocator(20000, free);
    const got = await Promise.all(Array.from({ length: 20 }, () => ports.acquire()));
    expect(new Set(got).size).toBe(20);
    expect(Math.min(...got)).toBe(20000);
    expect(ports.inUse).toBe(20);
  });

  it('moves on after a release instead of reusing the port a bot just left', async () => {
    const ports = new PortAllocator(30000, free);
    const a = await ports.acquire();
    ports.release(a);
    expect(await ports.acquire()).toBe(a + 1);
  });

  it('wraps around to base_port and fails clearly when the whole range is taken', async () => {
    const ports = new PortAllocator(65534, free);
    expect([await ports.acquire(), await ports.acquire()]).toEqual([65534, 65535]);
    await expect(ports.acquire()).rejects.toThrow(NoFreePortError);
    ports.release(65534);
    expect(await ports.acquire()).toBe(65534);
  });

  it('keeps two allocators sharing a lock folder (shards side by side) off each other’s ports', async () => {
    const dir = join(locks, 'shared');
    const a = new PortAllocator(31000, { probe: async () => true, lockDir: dir });
    const b = new PortAllocator(31000, { probe: async () => true, lockDir: dir });
    const got = [await a.acquire(), await b.acquire(), await a.acquire(), await b.acquire()];
    expect(got).toEqual([31000, 31001, 31002, 31003]);
    expect(readFileSync(join(dir, '31001'), 'utf8')).toBe(String(process.pid));
    b.release(31001);
    expect(existsSync(join(dir, '31001'))).toBe(false);
    a.releaseAll();
    expect(existsSync(join(dir, '31000'))).toBe(false);
    expect(existsSync(join(dir, '31003'))).toBe(true);
  });

  it('takes over a lock whose owner process is gone', async () => {
    const dir = join(locks, 'stale');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const ports = new PortAllocator(32000, { probe: async () => true, lockDir: dir });
    writeFileSync(join(dir, '32000'), String(dead));
    writeFileSync(join(dir, '32001'), String(process.ppid));
    expect(await ports.acquire()).toBe(32000);
    expect(await ports.acquire()).toBe(32002);
    expect(readFileSync(join(dir, '32000'), 'utf8')).toBe(String(process.pid));
  });

  it('unlocks a port it probed and found busy', async () => {
    const dir = join(locks, 'busy');
    const ports = new PortAllocator(33000, { probe: async (p) => p !== 33000, lockDir: dir });
    expect(await ports.acquire()).toBe(33001);
    expect(existsSync(join(dir, '33000'))).toBe(false);
  });

  it('rejects a base_port outside 1..65535', () => {
    expect(() => new PortAllocator(0)).toThrow(/base_port/);
    expect(() => new PortAllocator(70000)).toThrow(/base_port/);
  });
});
