// `npm run db:migrate`: applies pending migrations to the database the app would use.
import { getDbHandle } from '../lib/server/database';

const handle = await getDbHandle();
console.log(`Migrations applied (${handle.kind}).`);
await handle.close();
