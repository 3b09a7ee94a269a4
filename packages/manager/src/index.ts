export * from './app.ts';
export * from './options.ts';
export * from './webhooks/configurations.ts';
