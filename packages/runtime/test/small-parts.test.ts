import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ProbeServer } from '../src/http/probe-server.ts';
import {
  createLogger,
  errorFor,
  objectKey,
  parseListenAddress,
  splitKey,
  unlessNotFound,
} from '../src/index.ts';

describe('logger', () => {
  it('writes JSON lines with a constant message, lower-case keys and the level as a word', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const log = createLogger({ name: 'kruise-manager', level: 'debug', destination: destination as never });
    log.child({ controller: 'imagepulljob' }).info({ key: 'default/job' }, 'reconciled');
    log.trace('hidden');
    const entry = JSON.parse(lines[0]!);
    expect(entry).toMatchObject({
      level: 'info',
      msg: 'reconciled',
      controller: 'imagepulljob',
      key: 'default/job',
      component: 'kruise-manager',
    });
    // RFC 3339 in UTC with milliseconds, as pino's isoTime, and the time of the write.
    expect(entry.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Math.abs(Date.parse(entry.time) - Date.now())).toBeLessThan(60_000);
    expect(lines).toHaveLength(1);
  });

  it('takes its level from LOG_LEVEL', () => {
    process.env.LOG_LEVEL = 'warn';
    try {
      expect(createLogger().level).toBe('warn');
    } finally {
      delete process.env.LOG_LEVEL;
    }
  });
});

describe('small helpers', () => {
  it('keys objects as client-go does', () => {
    expect(objectKey({ metadata: { namespace: 'ns', name: 'a' } })).toBe('ns/a');
    expect(objectKey({ metadata: { name: 'node-1' } })).toBe('node-1');
    expect(splitKey('ns/a')).toEqual({ namespace: 'ns', name: 'a' });
    expect(splitKey('node-1')).toEqual({ namespace: '', name: 'node-1' });
  });

  it('parses listen addresses', () => {
    expect(parseListenAddress(':8080')).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(parseListenAddress('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseListenAddress('0')).toBeUndefined();
    expect(() => parseListenAddress(':http')).toThrow('invalid listen address ":http"');
  });

  it('reads a 404 as nothing and passes other failures on', async () => {
    expect(await unlessNotFound(Promise.resolve(1))).toBe(1);
    expect(await unlessNotFound(Promise.reject(errorFor(404, { reason: 'NotFound' })))).toBeUndefined();
    await expect(unlessNotFound(Promise.reject(errorFor(403, { message: 'forbidden' })))).rejects.toThrow(
      'forbidden',
    );
  });
});

describe('probe server', () => {
  it('answers /healthz with its checks and an HTTP Date header of now', async () => {
    const probes = new ProbeServer();
    probes.addHealthzCheck('ping', () => undefined);
    const port = await probes.listen('127.0.0.1', 0);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('ok');
      const date = res.headers.get('date')!;
      expect(date).toMatch(
        /^(Sun|Mon|Tue|Wed|Thu|Fri|Sat), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$/,
      );
      expect(Math.abs(Date.parse(date) - Date.now())).toBeLessThan(60_000);
    } finally {
      await probes.close();
    }
  });
});
