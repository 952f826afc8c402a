// `npm run audit:verify [-- --export <file.jsonl>]`: checks every user's audit chain (HMACs, no
// entry missing in the middle or at the end); with an export from GET /api/activity?format=jsonl,
// also that its user's log still reaches the head it recorded. Exit code 1 on a broken chain.
import { readFile } from 'node:fs/promises';

import { headOfExport } from '../lib/audit/export';
import { getAuditKeyring } from '../lib/audit/key';
import { verifyAllChains } from '../lib/audit/verify-all';
import { getDbHandle } from '../lib/server/database';

const args = process.argv.slice(2);
const at = args.indexOf('--export');
let exportHead = null;
if (at >= 0) {
  const file = args[at + 1];
  if (!file) {
    console.error('Usage: npm run audit:verify [-- --export <file.jsonl>]');
    process.exit(2);
  }
  exportHead = headOfExport(await readFile(file, 'utf8'));
  if (!exportHead) {
    console.error(`${file} has no head line: its last line should be {"type":"head",…} as GET /api/activity?format=jsonl writes it.`);
    process.exit(2);
  }
}
const keys = await getAuditKeyring();
const handle = await getDbHandle();
const { exitCode } = await verifyAllChains(handle.db, keys, { exportHead });
await handle.close();
process.exit(exitCode);
