import { rotateActionKey, rotateAdminToken } from '../secrets-file.ts';
import { CliFailure } from './failure.ts';
import { readSettings } from './settings.ts';

/** `parley token rotate`: a new administrator token in DATA_DIR's secrets file, printed once; with `--action-key`, a new action-link key instead. */
export async function rotateToken(options: { actionKey?: boolean } = {}): Promise<void> {
  const config = readSettings();
  const variable = options.actionKey ? 'ACTION_KEY' : 'ADMIN_TOKEN';
  if (config.databaseUrl) {
    throw new CliFailure(`DATABASE_URL is set: the ${options.actionKey ? 'action-link key' : 'administrator token'} comes from ${variable} in the environment; set a new value there and restart every instance`);
  }
  if (options.actionKey ? config.actionKey : config.adminToken) {
    throw new CliFailure(`${variable} is set in the environment (or .env), which wins over the secrets file; set a new value there and restart`);
  }
  if (options.actionKey) {
    const { secretsFile } = rotateActionKey(config.dataDir);
    console.log(`New action-link key written to ${secretsFile}.`);
    console.log('Restart the server to use it: from then on every action link sent so far is refused.');
    return;
  }
  const { adminToken, secretsFile } = rotateAdminToken(config.dataDir);
  console.log(`New administrator token (written to ${secretsFile}; shown only this once):`);
  console.log(adminToken);
  console.log('Restart the server to use it: from then on the old token is refused.');
}
