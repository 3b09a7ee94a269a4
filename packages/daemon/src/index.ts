export * from './app.ts';
export * from './cri/client.ts';
export * from './cri/discovery.ts';
export * from './cri/errors.ts';
export * from './options.ts';
