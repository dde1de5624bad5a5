/** Migrate: one project into another (backup source, restore engine). */
export { actualToDesired, type ActualToDesiredOptions } from './to-desired.js';
export { planMigration, pairTwins, settlePendingCreates, withoutAdopts, type PlanMigrationResult } from './migrate.js';
