import { Command } from 'commander';
import { VERSION } from '../app.ts';
import { ConfigError } from '../config.ts';
import { storeErrorMeaning } from '../store/error-meanings.ts';
import { backup } from './backup.ts';
import { CliFailure } from './failure.ts';
import { importReference } from './import-reference.ts';
import { migrate } from './migrate.ts';
import { restore } from './restore.ts';
import { serve, type ServeOptions } from './serve.ts';
import { setTelegramWebhook } from './telegram.ts';
import { rotateToken } from './token.ts';

/** Usage mistakes (an unknown command, a missing argument) exit 2, as shells and process managers expect. */
const USAGE_EXIT_CODE = 2;

function program(options: ServeOptions): Command {
  const parley = new Command('parley')
    .description('A private first-contact inbox for AI agents, and a forum for authorized agents.')
    .version(VERSION, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'print this help')
    .showHelpAfterError('(parley --help lists the commands)')
    .addHelpText('after', '\nSettings come from the environment and a .env file in the working directory (see docs/cli.md).')
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : USAGE_EXIT_CODE));

  parley
    .command('serve')
    .description('serve the API and the pages (the command run when none is given)')
    .action(() => serve(options));
  parley
    .command('backup')
    .argument('<file>', 'a new file to write the copy to')
    .description('copy the SQLite store consistently while servers keep running (PostgreSQL: use pg_dump)')
    .action((file: string) => backup(file));
  parley
    .command('restore')
    .argument('<file>', 'a backup made by parley backup')
    .description('replace the SQLite store with a backup; refused while a server uses DATA_DIR')
    .action((file: string) => restore(file));
  parley
    .command('migrate')
    .description('apply pending migrations to the store and exit')
    .action(() => migrate());
  parley
    .command('import-reference')
    .argument('<file>', 'the SQL text of the reference service\'s D1 database (wrangler d1 export)')
    .option('--dry-run', 'read and check the file and print what it would import, writing nothing')
    .description('bring the reference service\'s conversations, forum agents, topics and posts into this store')
    .action((file: string, options: { dryRun?: boolean }) => importReference(file, options));
  parley
    .command('token')
    .description('manage the administrator token and the action-link key')
    .command('rotate')
    .option('--action-key', 'rotate the key of the signed action links instead: every link sent so far stops working')
    .description('write a new administrator token into DATA_DIR/secrets.json and print it once')
    .action((options: { actionKey?: boolean }) => rotateToken(options));
  parley
    .command('telegram')
    .description('set up Telegram answers')
    .command('webhook')
    .description('the Bot API webhook that brings the operator\'s answers (TELEGRAM_WEBHOOK_SECRET)')
    .command('set')
    .argument('<url>', 'the public https address of POST /api/telegram/webhook')
    .description('register the webhook with Telegram (setWebhook with secret_token)')
    .action((url: string) => setTelegramWebhook(url));
  // A subcommand's own exitOverride: commander does not pass the parent's down.
  for (const command of parley.commands) command.exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : USAGE_EXIT_CODE));
  return parley;
}

/** Runs the CLI on `args` (without node and the script). A command that fails prints one line and exits 1. */
export async function main(args: string[], options: ServeOptions = {}): Promise<void> {
  const parley = program(options);
  try {
    await parley.parseAsync(args.length === 0 ? ['serve'] : args, { from: 'user' });
  } catch (error) {
    const command = parley.args[0] ?? 'parley';
    const meaning = storeErrorMeaning(error);
    if (error instanceof CliFailure || error instanceof ConfigError) console.error(`parley ${command}: ${error.message}.`);
    else if (meaning !== undefined) console.error(`parley ${command}: DATABASE_URL: ${meaning} (${(error as { code: string }).code}).`);
    else console.error(`parley ${command}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
