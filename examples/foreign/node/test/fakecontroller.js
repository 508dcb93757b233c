'use strict';
// A stand-in for locksim's Go controller (sim/foreign), for testing the Node
// shim alone: it starts `node locksim.js` with fd 3 on a socket, speaks
// protocol version 1 (docs/foreign.md) and bridges each connection the
// worker opens to a real redis-server, node i to database i. It serializes
// everything (one command, then its whole reply, before the next message),
// answers INFO itself with a fixed text, and moves true time by fixed steps,
// so the same seed and calls give the same bytes both ways.
//
//   const { run } = require('./fakecontroller');
//   const t = await run({ program, seed, nodes: 3, calls: ['acquire', 'release'], redis: '127.0.0.1:6379' });
//   t.lines     every line, '→ ' worker to controller, '← ' the other way
//   t.results   the ready (or raise) message, then the return/raise/finding of each call

const { spawn } = require('child_process');
const net = require('net');
const path = require('path');

const SHIM = path.join(__dirname, '..', '..', '..', '..', 'sim', 'foreign', 'shim', 'node', 'locksim.js');
const WALL0 = 1700000000000000000n; // the worker's wall clock at true time 0
const MONO0 = 0n; // its monotonic clock at true time 0
const RTT = 100000n; // a reply arrives 100 µs after the wait that asks for it
const BETWEEN_CALLS = 1000000n; // 1 ms of true time before each call
const INFO = '# Server\r\nredis_version:7.0.0\r\nredis_mode:standalone\r\n# Persistence\r\nloading:0\r\n';

// respEnd is where the RESP2 value starting at i ends, or -1 if incomplete.
function respEnd(b, i) {
  if (i >= b.length) return -1;
  const nl = b.indexOf('\r\n', i, 'latin1');
  if (nl < 0) return -1;
  const line = b.toString('latin1', i + 1, nl);
  switch (String.fromCharCode(b[i])) {
    case '+':
    case '-':
    case ':':
      return nl + 2;
    case '$': {
      const n = parseInt(line, 10);
      if (n < 0) return nl + 2;
      const end = nl + 2 + n + 2;
      return end <= b.length ? end : -1;
    }
    case '*': {
      const n = parseInt(line, 10);
      let j = nl + 2;
      for (let k = 0; k < n; k++) {
        j = respEnd(b, j);
        if (j < 0) return -1;
      }
      return j;
    }
    default:
      throw new Error(`not RESP at byte ${i}: ${JSON.stringify(b.toString('latin1', i, i + 20))}`);
  }
}

// commandName is the upper-cased first word of a RESP array of bulk strings.
function commandName(cmd) {
  const nl = cmd.indexOf('\r\n', 0, 'latin1');
  const nl2 = cmd.indexOf('\r\n', nl + 2, 'latin1');
  return cmd.toString('latin1', nl2 + 2, cmd.indexOf('\r\n', nl2 + 2, 'latin1')).toUpperCase();
}

class Bridge {
  constructor(redisAddr, db) {
    const i = redisAddr.lastIndexOf(':');
    this.sock = net.connect(Number(redisAddr.slice(i + 1)), redisAddr.slice(0, i));
    this.rbuf = Buffer.alloc(0);
    this.cbuf = Buffer.alloc(0);
    this.inbox = Buffer.alloc(0);
    this.waiter = null;
    this.closed = false;
    this.sock.on('data', (d) => {
      this.rbuf = Buffer.concat([this.rbuf, d]);
      if (this.waiter) this.waiter();
    });
    this.ready = this.roundTrip(Buffer.from(`*2\r\n$6\r\nSELECT\r\n$${String(db).length}\r\n${db}\r\n`));
  }

  async roundTrip(cmd) {
    this.sock.write(cmd);
    for (;;) {
      const end = respEnd(this.rbuf, 0);
      if (end >= 0) {
        const reply = this.rbuf.subarray(0, end);
        this.rbuf = this.rbuf.subarray(end);
        return reply;
      }
      await new Promise((resolve) => {
        this.waiter = resolve;
      });
      this.waiter = null;
    }
  }

  // forward sends every complete command the worker wrote and queues each reply for it.
  async forward(data) {
    await this.ready;
    this.cbuf = Buffer.concat([this.cbuf, data]);
    for (;;) {
      const end = respEnd(this.cbuf, 0);
      if (end < 0) return;
      const cmd = this.cbuf.subarray(0, end);
      this.cbuf = this.cbuf.subarray(end);
      let reply;
      if (commandName(cmd) === 'INFO') reply = Buffer.from(`$${Buffer.byteLength(INFO)}\r\n${INFO}\r\n`);
      else reply = await this.roundTrip(cmd);
      this.inbox = Buffer.concat([this.inbox, reply]);
    }
  }

  close() {
    this.closed = true;
    this.sock.destroy();
  }
}

async function resetRedis(redisAddr, dbs) {
  const b = new Bridge(redisAddr, 0);
  await b.ready;
  for (let db = 0; db < dbs; db++) {
    await b.roundTrip(Buffer.from(`*2\r\n$6\r\nSELECT\r\n$${String(db).length}\r\n${db}\r\n`));
    await b.roundTrip(Buffer.from('*1\r\n$7\r\nFLUSHDB\r\n'));
  }
  await b.roundTrip(Buffer.from('*2\r\n$6\r\nSCRIPT\r\n$5\r\nFLUSH\r\n'));
  b.close();
}

// run starts one worker, runs the calls and returns the transcript.
// eofAt: {wait: n, conn: c} answers the worker's n-th wait (from 1) with eof on c.
async function run({ program, seed, nodes = 1, calls, redis, params = {}, env = {}, cwd = undefined, eofAt = null, timeoutMs = 20000, wallOf = null, monoOf = null }) {
  if (redis) await resetRedis(redis, nodes);
  const addrs = [];
  for (let i = 0; i < nodes; i++) addrs.push(`127.0.0.1:${7001 + i}`);
  const child = spawn(process.execPath, [SHIM], {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
    cwd,
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.on('data', () => {});
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const sock = child.stdio[3];
  const lines = [];
  const results = [];
  let buf = '';
  const queue = [];
  let wake = null;
  let eof = false;
  sock.on('data', (d) => {
    buf += d.toString('utf8');
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      queue.push(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
    if (wake) wake();
  });
  sock.on('end', () => {
    eof = true;
    if (wake) wake();
  });
  const deadline = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  async function next() {
    while (queue.length === 0) {
      if (eof) throw new Error(`worker closed fd 3; stderr: ${stderr.trim()}`);
      await new Promise((resolve) => (wake = resolve));
      wake = null;
    }
    const line = queue.shift();
    lines.push(`→ ${line}`);
    return JSON.parse(line);
  }
  let T = 0n;
  function put(obj) {
    const line = JSON.stringify(obj);
    lines.push(`← ${line}`);
    sock.write(line + '\n');
  }
  // wallOf/monoOf: the worker's clocks at true time T (default: both run true)
  const clocks = () => ({
    wall: String(wallOf ? wallOf(T) : WALL0 + T),
    mono: String(monoOf ? monoOf(T) : MONO0 + T),
  });
  const bridges = new Map();
  let waits = 0;
  try {
    const hello = await next();
    if (hello.op !== 'hello') throw new Error(`first message ${hello.op}`);
    put({ op: 'init', name: 'c1', seed: String(seed), nodes: addrs, params: { key: 'lock.foo', ...params }, program, ...clocks() });
    const ready = await next();
    results.push(ready);
    if (ready.op !== 'ready') return { lines, results, stderr };
    for (const fn of calls) {
      T += BETWEEN_CALLS;
      put({ op: 'call', fn, ...clocks() });
      for (;;) {
        const m = await next();
        if (m.op === 'connect') {
          const node = addrs.indexOf(m.addr);
          if (node < 0) throw new Error(`worker dialed ${m.addr} without a finding`);
          if (!redis) throw new Error('worker connected, and this run has no redis-server');
          bridges.set(m.conn, new Bridge(redis, node));
        } else if (m.op === 'send') {
          await bridges.get(m.conn).forward(Buffer.from(m.data, 'base64'));
        } else if (m.op === 'close') {
          bridges.get(m.conn).close();
        } else if (m.op === 'log') {
          // kept in lines
        } else if (m.op === 'wait') {
          waits++;
          if (eofAt && eofAt.wait === waits) {
            T += RTT;
            bridges.get(eofAt.conn).close();
            put({ op: 'event', ev: 'eof', conn: eofAt.conn, ...clocks() });
            continue;
          }
          const timeout = m.timeout === null ? null : BigInt(m.timeout);
          const conn = m.conns.find((c) => bridges.has(c) && bridges.get(c).inbox.length > 0);
          if (conn !== undefined && (timeout === null || timeout >= RTT)) {
            const b = bridges.get(conn);
            T += RTT;
            put({ op: 'event', ev: 'data', conn, data: b.inbox.toString('base64'), ...clocks() });
            b.inbox = Buffer.alloc(0);
          } else if (timeout !== null) {
            T += timeout;
            put({ op: 'event', ev: 'timeout', ...clocks() });
          } else {
            throw new Error(`worker waits forever: ${JSON.stringify(m)}`);
          }
        } else if (m.op === 'return' || m.op === 'raise') {
          results.push(m);
          break;
        } else if (m.op === 'finding') {
          results.push(m);
          return { lines, results, stderr, exit: await exited };
        } else {
          throw new Error(`unknown op from worker: ${JSON.stringify(m)}`);
        }
      }
    }
    return { lines, results, stderr };
  } finally {
    clearTimeout(deadline);
    child.kill('SIGKILL');
    await exited;
    for (const b of bridges.values()) b.close();
  }
}

module.exports = { run, respEnd, WALL0 };
