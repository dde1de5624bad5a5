export * from './envelope.js';
export * from './resources.js';
export * from './request-schemas.js';
export * from './endpoints.js';
export * from './bodies.js';
