export * from './conditions.ts';
export * from './control.ts';
export * from './not-ready-keys.ts';
