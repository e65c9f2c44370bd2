import { spawn, type ChildProcess } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Local addresses the clients connect from, 127.0.0.2 onwards: each has its own ephemeral ports, so
 * 10,000 connections do not run out of them after a suite's earlier floods left theirs in TIME_WAIT.
 */
const LOCAL_ADDRESSES = 8;

/**
 * Opens `count` connections in batches, each sending the raw request once; exits when stdin closes.
 * Each second it prints what its connections came to (opened, failed by code, answered by status)
 * as a line of JSON on stdout, so a test that waits in vain can say why.
 */
const CLIENTS = `
const net = require('node:net');
const [port, request, count, batch] = process.argv.slice(1);
const sockets = [];
const progress = { opened: 0, failures: {}, answers: {} };
async function open() {
  for (let sent = 0; sent < Number(count); sent += Number(batch)) {
    await Promise.all(Array.from({ length: Math.min(Number(batch), Number(count) - sent) }, (_, index) => new Promise((resolve) => {
      const localAddress = '127.0.0.' + (2 + ((sent + index) % ${LOCAL_ADDRESSES}));
      const socket = net.connect({ port: Number(port), host: '127.0.0.1', localAddress }, () => { progress.opened += 1; socket.write(request, resolve); });
      socket.on('error', (error) => { progress.failures[error.code] = (progress.failures[error.code] ?? 0) + 1; resolve(); });
      socket.once('data', (chunk) => { const status = String(chunk).split(' ')[1]; progress.answers[status] = (progress.answers[status] ?? 0) + 1; });
      sockets.push(socket);
    })));
  }
  if (Object.keys(progress.failures).length > 0) console.error('held clients: connections failed ' + JSON.stringify(progress.failures));
}
let said = '';
setInterval(() => { const line = JSON.stringify(progress); if (line !== said) console.log(line); said = line; }, 1000);
process.stdin.on('end', () => { for (const socket of sockets) socket.destroy(); process.exit(0); });
process.stdin.resume();
void open();
`;

/**
 * `count` clients in a child process on raw sockets, each sending `request` (a whole HTTP/1.1
 * request) once and holding its connection, so that only the server's memory is counted (each side
 * of a connection is a descriptor, and one process may hold 20,000). `release` closes them all;
 * `progress` says what the clients last reported.
 */
export function heldClients(port: number, request: string, count: number, batch = 250): { child: ChildProcess; progress(): string; release(): Promise<void> } {
  const child = spawn(process.execPath, ['-e', CLIENTS, String(port), request, String(count), String(batch)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let lastLine = 'nothing yet';
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    if (lines.length > 0) lastLine = lines.at(-1)!;
  });
  return {
    child,
    progress: () => `the clients said ${lastLine}`,
    release: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin!.end();
      await exited;
    },
  };
}

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** The process's memory after a full collection, so that a figure counts what is held and not garbage. */
export function memoryAfterCollection(): NodeJS.MemoryUsage {
  collectGarbage();
  return process.memoryUsage();
}
