import { describe, expect, it } from 'vitest';
import { httpDate, isoTime, kubeTime } from '../src/index.ts';

describe('isoTime, httpDate and kubeTime', () => {
  it('write what Date#toISOString and Date#toUTCString write, for every field width', () => {
    const samples = [
      0,
      1,
      999,
      Date.UTC(2026, 10, 24, 16, 40, 5, 7),
      Date.UTC(2026, 0, 1, 0, 0, 0, 50),
      Date.UTC(1999, 11, 31, 23, 59, 59, 999),
      Date.UTC(2024, 1, 29, 12, 0, 0, 100),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10000, 0, 1),
      Date.UTC(-1, 0, 1),
      -1,
    ];
    for (let i = 0; i < 200; i++) samples.push(Math.floor(Math.random() * 4e12));
    for (const ms of samples) {
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      expect(httpDate(ms)).toBe(new Date(ms).toUTCString());
    }
  });

  it('kubeTime drops the milliseconds, from a Date or epoch milliseconds', () => {
    const ms = Date.UTC(2026, 10, 22, 4, 40, 47, 123);
    expect(kubeTime(ms)).toBe('2026-11-22T04:40:47Z');
    expect(kubeTime(new Date(ms))).toBe('2026-11-22T04:40:47Z');
    expect(kubeTime()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});
