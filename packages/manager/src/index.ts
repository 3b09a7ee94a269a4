export * from './app.ts';
export * from './deploy/webhook-configurations.ts';
export * from './features.ts';
export * from './options.ts';
