import { describe, expect, it } from 'vitest';
import { DockerKeyring, InvalidPullSecretError } from '../src/auth/keyring.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const secret = (name: string, auths: Record<string, unknown>, legacy = false) => ({
  metadata: { namespace: 'kruise-daemon-config', name },
  data: (legacy
    ? { '.dockercfg': b64(JSON.stringify(auths)) }
    : { '.dockerconfigjson': b64(JSON.stringify({ auths })) }) as Record<string, string>,
});

describe('DockerKeyring', () => {
  it('matches host, port, path prefix and wildcards, most specific first', () => {
    const k = new DockerKeyring();
    k.addSecret(
      secret('a', {
        'https://registry.example.com': { auth: b64('any:1') },
        'registry.example.com/team': { username: 'team', password: '2' },
      }),
    );
    k.addSecret(
      secret('b', { '*.corp.io': { auth: b64('wild:3') }, '127.0.0.1:5000': { auth: b64('local:4') } }, true),
    );
    expect(k.lookup('registry.example.com/team/app:v1').map((c) => c.username)).toEqual(['team', 'any']);
    expect(k.lookup('registry.example.com/other/app').map((c) => c.username)).toEqual(['any']);
    expect(k.lookup('eu.corp.io/app').map((c) => c.username)).toEqual(['wild']);
    expect(k.lookup('a.b.corp.io/app')).toEqual([]);
    expect(k.lookup('127.0.0.1:5000/busybox:v1').map((c) => c.password)).toEqual(['4']);
    expect(k.lookup('127.0.0.1:5001/busybox:v1')).toEqual([]);
    expect(k.lookup('nginx')).toEqual([]);
  });

  it('maps index.docker.io keys to Docker Hub images', () => {
    const k = new DockerKeyring();
    k.addSecret(secret('hub', { 'https://index.docker.io/v1/': { auth: b64('hub:5') } }));
    expect(k.lookup('nginx:1.25').map((c) => c.username)).toEqual(['hub']);
  });

  it('rejects malformed secrets with a message that names the secret and hides its content', () => {
    const k = new DockerKeyring();
    expect(() =>
      k.addSecret({
        metadata: { namespace: 'ns', name: 'bad' },
        data: { '.dockerconfigjson': b64('{not json hunter2') },
      }),
    ).toThrow(InvalidPullSecretError);
    try {
      k.addSecret({
        metadata: { namespace: 'ns', name: 'bad' },
        data: { '.dockerconfigjson': b64('{not json hunter2') },
      });
    } catch (err) {
      expect((err as Error).message).toBe('secret ns/bad does not hold valid docker config JSON');
    }
    expect(() =>
      k.addSecret({
        metadata: { namespace: 'ns', name: 'x' },
        data: { '.dockerconfigjson': b64(JSON.stringify({ auths: { r: { auth: b64('nocolon') } } })) },
      }),
    ).toThrow('secret ns/x: the auth of r is not base64 of user:password');
  });
});
