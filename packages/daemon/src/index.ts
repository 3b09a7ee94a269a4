export * from './app.ts';
export * from './cri/discovery.ts';
export * from './options.ts';
