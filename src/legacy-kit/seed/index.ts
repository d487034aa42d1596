// Seeding the store from the legacy service's two read operations
// (docs/migration.md#seed-from-the-legacy-service), written through the importer.
export { seedFromLegacy, type SeedOptions, type SeedProgress, type SeedResult } from './seed';
export { readSchoolsFile, SchoolsFileError, type SchoolEntry } from './schools-file';
export { SeedStateError } from './seed-state';
export { LegacyServiceError, READ_OPERATIONS, type ReadOperation } from './legacy-client';
