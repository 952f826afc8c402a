// `npm run rotate-secrets`: re-seals every stored secret under SECRETS_KEY. Rotate by moving
// the old key into SECRETS_KEY_PREVIOUS, setting a new SECRETS_KEY, restarting, then running
// this; once it reports nothing unreadable, the old key can be dropped. It also upgrades values an
// earlier release sealed (format v1) to v2, bound to the row they are stored in.
import { rotateSecrets } from '../lib/secrets/rotate';
import { SEALED_COLUMNS } from '../lib/secrets/sealed-columns';
import { loadSecretBox } from '../lib/secrets/secret-box';
import { getDbHandle } from '../lib/server/database';

const box = await loadSecretBox();
const handle = await getDbHandle();
const reports = await rotateSecrets(handle.db, box, SEALED_COLUMNS);
await handle.close();
let unreadable = 0;
for (const r of reports) {
  const upgraded = r.upgraded > 0 ? ` (${r.upgraded} of them from format v1, now bound to their row)` : '';
  console.log(`${r.label}: ${r.resealed} re-sealed${upgraded}, ${r.current} already under key ${box.keyId}, ${r.unreadable} unreadable`);
  unreadable += r.unreadable;
}
if (unreadable > 0) {
  console.error(
    `${unreadable} value(s) could not be opened with SECRETS_KEY or SECRETS_KEY_PREVIOUS, or not in the row they are in; ` +
      'they were left as they are.',
  );
  process.exit(1);
}
