import { rotateAdminToken } from '../secrets-file.ts';
import { CliFailure } from './failure.ts';
import { readSettings } from './settings.ts';

/** `parley token rotate`: a new administrator token in DATA_DIR's secrets file, printed once. */
export async function rotateToken(): Promise<void> {
  const config = readSettings();
  if (config.databaseUrl) {
    throw new CliFailure('DATABASE_URL is set: the administrator token comes from ADMIN_TOKEN in the environment; set a new value there and restart every instance');
  }
  if (config.adminToken) {
    throw new CliFailure('ADMIN_TOKEN is set in the environment (or .env), which wins over the secrets file; set a new value there and restart');
  }
  const { adminToken, secretsFile } = rotateAdminToken(config.dataDir);
  console.log(`New administrator token (written to ${secretsFile}; shown only this once):`);
  console.log(adminToken);
  console.log('Restart the server to use it: from then on the old token is refused.');
}
