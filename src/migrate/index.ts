/** Migrate: one project into another (backup source, restore engine). */
export { actualToDesired } from './to-desired.js';
export { planMigration } from './migrate.js';
