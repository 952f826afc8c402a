/**
 * The database schema, one file per area under db/tables/ (drizzle-kit reads this file:
 * drizzle.config.ts). Import tables from here.
 */
export * from './tables/accounts';
export * from './tables/conversations';
export * from './tables/usage';
export * from './tables/notes';
export * from './tables/tool-calls';
export * from './tables/servers';
export * from './tables/audit';
export * from './tables/grants';
export * from './tables/shares';
export * from './tables/files';
export * from './tables/organizations';
export * from './tables/gateway';
