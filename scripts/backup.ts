// `npm run backup -- <file>`: the embedded database and its keys in one file (lib/ops/backup.ts).
import { dataDir } from '../lib/data-dir';
import { backupDataDir, BackupRefused } from '../lib/ops/backup';

const [file, ...rest] = process.argv.slice(2);
if (!file || rest.length) {
  console.error('Usage: npm run backup -- <file>');
  process.exit(2);
}
try {
  const report = await backupDataDir(dataDir(), file);
  const { applied, expected } = report.migrations;
  const keys = report.keys.length ? `the keys ${report.keys.join(', ')}` : 'no key files';
  const size = `${Math.ceil(report.bytes / 1024)} KB, 0600`;
  console.log(`Backed up ${dataDir()} to ${report.file} (${size}): the database (${applied} of ${expected} migrations) and ${keys}.`);
  console.log('Keep it as safe as the data folder itself: it opens every stored credential and can re-sign the audit log.');
  if (report.fromEnvironment.length)
    console.log(`Not in it, being set in the environment: ${report.fromEnvironment.join(', ')}. Keep them with the backup's records.`);
} catch (err) {
  if (!(err instanceof BackupRefused)) throw err;
  console.error(err.message);
  process.exit(1);
}
