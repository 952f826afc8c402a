// `npm run restore -- <file> [--force]`: puts a backup of `npm run backup` back as the data folder (lib/ops/backup.ts).
import { dataDir } from '../lib/data-dir';
import { BackupRefused, restoreDataDir } from '../lib/ops/backup';

const args = process.argv.slice(2);
const force = args.includes('--force');
const files = args.filter((a) => a !== '--force');
if (files.length !== 1 || files[0]!.startsWith('--')) {
  console.error('Usage: npm run restore -- <file> [--force]');
  process.exit(2);
}
try {
  const report = await restoreDataDir(dataDir(), files[0]!, { force });
  const { applied, expected } = report.migrations;
  const keys = report.keys.length ? `the keys ${report.keys.join(', ')}` : 'no key files';
  const later = applied < expected ? '; the app applies the rest when it starts' : '';
  const database = `the database (${applied} of ${expected} migrations${later})`;
  console.log(`Restored ${files[0]} into ${report.dataDir}: ${database} and ${keys}.`);
  if (report.previous) console.log(`The folder it replaced is kept at ${report.previous}: delete it once the app runs well.`);
  for (const warning of report.warnings) console.warn(warning);
} catch (err) {
  if (!(err instanceof BackupRefused)) throw err;
  console.error(err.message);
  process.exit(1);
}
