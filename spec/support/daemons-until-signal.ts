// A program, not a spec: a stand-in for a spec run that has started its daemons when
// Ctrl+C comes. It starts microsocks and danted, prints their pids as one JSON line, and
// waits for a signal (60 s at most).
import { startDante, startMicrosocks } from './upstream-proxies.js';

const daemons = await Promise.all([startMicrosocks(), startDante()]);
process.stdout.write(`${JSON.stringify(daemons.map((d) => ({ name: d.name, pid: d.pid })))}\n`);
setTimeout(() => process.exit(1), 60_000);
