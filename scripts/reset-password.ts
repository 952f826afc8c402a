// `npm run reset-password -- <email>`: prints a one-time link that sets a new password (the app
// sends no mail). With the embedded database, stop the app first: one process per data folder.
import { createResetLink, RESET_TOKEN_TTL_MS } from '../lib/account/password-reset';
import { getDbHandle } from '../lib/server/database';

const [email] = process.argv.slice(2);
if (!email) {
  console.error('Usage: npm run reset-password -- <email>');
  process.exit(2);
}
const handle = await getDbHandle();
const link = await createResetLink(handle.db, email);
await handle.close();
if (!link) {
  console.error(`No user with email ${email}.`);
  process.exit(1);
}
console.log(`Reset link for ${email} (valid for ${RESET_TOKEN_TTL_MS / 60_000} minutes, once):\n${link.url}`);
