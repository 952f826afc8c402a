/**
 * The shape of every JSON column, declared once. Rows are parsed through these on read (in
 * db/queries), never cast, and written only in the current version. Each stored object carries
 * `v`; a row written before versioning has none and is read as version 0, converted here to the
 * current shape, so rows from an older release keep loading. db/stored-json.fixtures.ts keeps
 * a sample of every version; its test fails when a change would stop one of them from parsing.
 *
 * The shapes live by area in db/json/ (as the tables do in db/tables/); this file gathers them, so
 * every importer keeps one path.
 */

export * from './json/accounts';
export * from './json/audit';
export * from './json/conversations';
export * from './json/grants';
export * from './json/orgs';
export * from './json/read';
export * from './json/servers';
export * from './json/tool-calls';
export * from './json/gateway';
