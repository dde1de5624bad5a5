export * from './common.js';
export * from './resources.js';
export * from './requests.js';
export * from './endpoints.js';
export * from './bodies.js';
