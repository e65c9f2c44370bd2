import { SECRETS_FILE_NAME } from '../secrets-file.ts';
import { SQLITE_FILE_NAMES } from '../store/sqlite/open.ts';
import { LOCK_FILE_NAME } from './data-dir-lock.ts';

/** The files of DATA_DIR that only the server's user may open: the store, its journal files, the secrets and the lock. */
export const PRIVATE_FILE_NAMES = [...SQLITE_FILE_NAMES, SECRETS_FILE_NAME, LOCK_FILE_NAME];
