import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../config/serve-process.ts';

const run = promisify(execFile);

/** The newest installed PostgreSQL server binaries (Debian layout), or PARLEY_TEST_PG_BIN. */
export function postgresBinDir(): string | undefined {
  if (process.env.PARLEY_TEST_PG_BIN) return process.env.PARLEY_TEST_PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(path.join(root, name, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(root, versions[0], 'bin');
}

/** The pids whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      if (new RegExp(`^PPid:\\s+${pid}$`, 'm').test(status)) children.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}

/** Running, and not a zombie waiting for its parent (in a container, nobody may reap it). */
function alive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * A PostgreSQL server of its own, on a free loopback port, in a temporary directory: a test may
 * crash it (SIGKILL) without touching the machine's shared server. PostgreSQL refuses to run as
 * root, so as root every command runs as the `postgres` user (runuser), in a directory it owns.
 */
export class PrivateCluster {
  private constructor(
    readonly bin: string,
    readonly dir: string,
    readonly port: number,
  ) {}

  get dataDir(): string {
    return path.join(this.dir, 'data');
  }

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  static async create(bin: string): Promise<PrivateCluster> {
    const dir = mkdtempSync(path.join(tmpdir(), 'parley-pg-'));
    if (process.getuid?.() === 0) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: group } = await run('id', ['-g', 'postgres']);
      chownSync(dir, Number(stdout.trim()), Number(group.trim()));
    }
    const cluster = new PrivateCluster(bin, dir, await freePort());
    // --no-sync only for initdb's own files; the server itself keeps fsync on: durability is under test.
    await cluster.command('initdb', ['-D', cluster.dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    await cluster.start();
    return cluster;
  }

  private command(name: string, args: string[]) {
    const file = path.join(this.bin, name);
    const asRoot = process.getuid?.() === 0;
    return run(asRoot ? 'runuser' : file, asRoot ? ['-u', 'postgres', '--', file, ...args] : args, { cwd: this.dir, timeout: 60_000 });
  }

  /** Starts the server and waits until it accepts connections (after crash recovery, if any). */
  async start(): Promise<void> {
    const options = [
      `-p ${this.port}`,
      '-c listen_addresses=127.0.0.1',
      `-c unix_socket_directories=${this.dir}`,
      '-c max_connections=60',
      '-c shared_buffers=16MB',
      '-c fsync=on',
      '-c synchronous_commit=on',
    ].join(' ');
    await this.command('pg_ctl', ['-D', this.dataDir, '-l', path.join(this.dir, 'server.log'), '-o', options, '-w', '-t', '60', 'start']);
  }

  private postmasterPid(): number | undefined {
    try {
      const pid = Number(readFileSync(path.join(this.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * A crash: SIGKILL to the server and every one of its processes at once, as a power cut would
   * (no shutdown checkpoint, no goodbye to clients). The next start runs crash recovery from the WAL.
   */
  async kill(): Promise<void> {
    const pid = this.postmasterPid();
    if (pid === undefined) throw new Error('the private PostgreSQL is not running');
    process.kill(pid, 'SIGSTOP'); // no new backend is forked while we collect them
    const victims = [...childrenOf(pid), pid];
    for (const victim of victims) {
      try {
        process.kill(victim, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    const deadline = Date.now() + 10_000;
    while (victims.some(alive)) {
      if (Date.now() > deadline) throw new Error('the private PostgreSQL did not die');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** A hung server: every process stopped (SIGSTOP), connections open but nothing answers. */
  pause(): void {
    if (!this.signalAll('SIGSTOP')) throw new Error('the private PostgreSQL is not running');
  }

  /** Lets a paused server go on; nothing to do when it is not running. */
  resume(): void {
    this.signalAll('SIGCONT');
  }

  private signalAll(signal: NodeJS.Signals): boolean {
    const pid = this.postmasterPid();
    if (pid === undefined) return false;
    // The server first: once stopped it forks no backend we would miss.
    process.kill(pid, signal);
    for (const child of childrenOf(pid)) {
      try {
        process.kill(child, signal);
      } catch {
        // Already gone.
      }
    }
    return true;
  }

  log(): string {
    try {
      return readFileSync(path.join(this.dir, 'server.log'), 'utf8');
    } catch {
      return '';
    }
  }

  async destroy(): Promise<void> {
    this.resume();
    if (this.postmasterPid() !== undefined) {
      await this.command('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => this.kill().catch(() => {}));
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
