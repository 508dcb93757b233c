'use strict';
// locksim's Node.js shim: the worker side of the foreign-process protocol
// (docs/foreign.md, "The protocol (version 1)"; what this file patches and
// what it cannot see is in its "Node shim" section).
//
//   node locksim.js          fd 3 = the protocol socket, blocking
//
// It says hello, takes init, puts the program's clocks, timers, sockets and
// random numbers under the simulation's control, loads the program (a
// CommonJS file exporting async acquire/release/extend) and then runs one
// call at a time. Between messages nothing advances: the fake clock moves
// only when a message from the controller carries new clocks, and the event
// loop runs only the work that is already due. When nothing is left to run
// (no Immediate, no in-flight I/O request, no timer due) the shim sends
// `wait` and blocks on fd 3 for the event.
//
// Determinism: nothing here reads the host's clock or randomness to decide
// anything; the messages it sends depend only on init, the events and the
// program. (hello's pid is the one exception, and it is only reported.)
//
// The shim is driven from real setImmediate turns (Immediates are not
// faked): each turn is a macrotask, so process.nextTick callbacks and
// promise jobs run between timers and deliveries as they do in Node.

const fs = require('fs');
const path = require('path');
const Module = require('module');
const net = require('net');
const tls = require('tls');
const os = require('os');
const util = require('util');
const crypto = require('crypto');
const { Duplex } = require('stream');

const FD = 3;
const realSetImmediate = setImmediate;
const SPIN_LIMIT = 1000000;

// ---- transport ---------------------------------------------------------

let inBuf = Buffer.alloc(0);
const readChunk = Buffer.alloc(65536);
const pauseCell = new Int32Array(new SharedArrayBuffer(4));

function die(msg) {
  try {
    fs.writeSync(2, `locksim node shim: ${msg}\n`);
  } catch (_) {
    // stderr is gone too; the exit code says it
  }
  process.exit(2);
}

// eagain backs off 1 ms of host time when fd 3 turns out non-blocking. How
// long it waits decides nothing: the next read or write is retried as is.
function eagain() {
  Atomics.wait(pauseCell, 0, 0, 1);
}

function writeAll(buf) {
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(FD, buf, off, buf.length - off);
    } catch (e) {
      if (e.code === 'EAGAIN') {
        eagain();
        continue;
      }
      if (e.code === 'EPIPE') process.exit(0); // the controller is gone
      die(`cannot write fd 3, the protocol socket (run the shim from locksim's controller): ${e.code || e.message}`);
    }
  }
}

function sendNow(obj) {
  writeAll(Buffer.from(JSON.stringify(obj) + '\n', 'utf8'));
}

function recv() {
  for (;;) {
    const nl = inBuf.indexOf(10);
    if (nl >= 0) {
      const line = inBuf.subarray(0, nl).toString('utf8');
      inBuf = inBuf.subarray(nl + 1);
      let msg;
      try {
        msg = JSON.parse(line);
      } catch (e) {
        die(`controller sent a line that is not JSON: ${JSON.stringify(line.slice(0, 200))}`);
      }
      if (msg === null || typeof msg !== 'object' || Array.isArray(msg) || typeof msg.op !== 'string') {
        die(`controller sent a message without an op: ${line.slice(0, 200)}`);
      }
      if (msg.op === 'reset' && !atRest) process.exit(0); // not at rest: a fresh worker serves the next
      clockReads = 0;
      turnsWithoutWait = 0;
      return msg;
    }
    let n;
    try {
      n = fs.readSync(FD, readChunk, 0, readChunk.length, null);
    } catch (e) {
      if (e.code === 'EAGAIN') {
        eagain();
        continue;
      }
      die(`cannot read fd 3, the protocol socket (run the shim from locksim's controller): ${e.code || e.message}`);
    }
    if (n === 0) {
      if (inBuf.length > 0) die('controller closed fd 3 in the middle of a line');
      process.exit(0); // the controller is gone: nothing left to run for
    }
    inBuf = Buffer.concat([inBuf, readChunk.subarray(0, n)]);
  }
}

// Messages the program causes outside a call (connections opened while its
// file loads, console lines) are held and sent when the next call starts:
// the protocol has them only inside calls, and no time passes in between.
let inCall = false;
const outbox = [];
function send(obj) {
  if (inCall) sendNow(obj);
  else outbox.push(obj);
}

function finding(msg) {
  sendNow({ op: 'finding', msg });
  process.exit(0);
}

// ---- times ---------------------------------------------------------------

function nsField(msg, field) {
  const v = msg[field];
  if (typeof v !== 'string' || !/^-?[0-9]+$/.test(v)) {
    die(`controller's ${msg.op} has ${field}=${JSON.stringify(v)}, want a decimal string of nanoseconds`);
  }
  return BigInt(v);
}

const NS_PER_MS = 1000000n;
function floorMs(ns) {
  let q = ns / NS_PER_MS;
  if (ns < 0n && q * NS_PER_MS !== ns) q -= 1n;
  return Number(q);
}

// ---- seeded randomness ---------------------------------------------------
// xoshiro256** seeded through splitmix64, on BigInt: two streams from the
// init seed, one for Math.random and one for bytes (crypto), so drawing from
// one never shifts the other.

const M64 = (1n << 64n) - 1n;
function splitmix(state) {
  let s = state;
  return () => {
    s = (s + 0x9e3779b97f4a7c15n) & M64;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
    return z ^ (z >> 31n);
  };
}
function rotl(x, k) {
  return ((x << k) | (x >> (64n - k))) & M64;
}
function xoshiro(seed) {
  const sm = splitmix(seed & M64);
  const s = [sm(), sm(), sm(), sm()];
  return () => {
    const result = (rotl((s[1] * 5n) & M64, 7n) * 9n) & M64;
    const t = (s[1] << 17n) & M64;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45n);
    return result;
  };
}

let nextMath = null;
let nextBytes64 = null;
let byteCache = 0n;
let byteCacheLeft = 0;

function randomDouble() {
  return Number(nextMath() >> 11n) / 9007199254740992;
}
function fillRandom(buf) {
  for (let i = 0; i < buf.length; i++) {
    if (byteCacheLeft === 0) {
      byteCache = nextBytes64();
      byteCacheLeft = 8;
    }
    buf[i] = Number(byteCache & 0xffn);
    byteCache >>= 8n;
    byteCacheLeft--;
  }
  return buf;
}
function viewBytes(v) {
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return v;
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  if (v instanceof ArrayBuffer || v instanceof SharedArrayBuffer) return new Uint8Array(v);
  throw new TypeError('The "buf" argument must be an ArrayBuffer, a Buffer, a TypedArray or a DataView');
}
function uniformBelow(range) {
  // range >= 1, < 2**48 (crypto.randomInt's limit): rejection sampling on 48 bits
  const limit = 2 ** 48 - (2 ** 48 % range);
  for (;;) {
    const x = Number(nextBytes64() >> 16n);
    if (x < limit) return x % range;
  }
}
function uuid4() {
  const b = fillRandom(Buffer.alloc(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function patchRandom(seed) {
  nextMath = xoshiro(seed ^ 0x6c6f636b73696d31n); // "locksim1"
  nextBytes64 = xoshiro(seed ^ 0x6c6f636b73696d32n); // "locksim2"
  Math.random = function random() {
    return randomDouble();
  };
  const randomBytes = function randomBytes(size, cb) {
    if (typeof size !== 'number' || !(size >= 0) || size > 2 ** 31 - 1 || Math.floor(size) !== size) {
      throw new RangeError(`The value of "size" is out of range. Received ${util.inspect(size)}`);
    }
    const buf = fillRandom(Buffer.alloc(size));
    if (typeof cb === 'function') {
      realSetImmediate(cb, null, buf);
      return undefined;
    }
    return buf;
  };
  crypto.randomBytes = randomBytes;
  crypto.pseudoRandomBytes = randomBytes;
  crypto.prng = randomBytes;
  crypto.rng = randomBytes;
  crypto.randomFillSync = function randomFillSync(buf, offset = 0, size) {
    const v = viewBytes(buf);
    const end = size === undefined ? v.length : offset + size;
    fillRandom(v.subarray(offset, end));
    return buf;
  };
  crypto.randomFill = function randomFill(buf, offset, size, cb) {
    if (typeof offset === 'function') [cb, offset, size] = [offset, 0, undefined];
    else if (typeof size === 'function') [cb, size] = [size, undefined];
    crypto.randomFillSync(buf, offset, size);
    realSetImmediate(cb, null, buf);
  };
  crypto.randomInt = function randomInt(min, max, cb) {
    if (typeof max === 'function' || max === undefined) [cb, max, min] = [max, min, 0];
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || max <= min || max - min > 2 ** 48) {
      throw new RangeError(`crypto.randomInt: want safe integers min < max, max - min <= 2**48; got ${min}, ${max}`);
    }
    const n = min + uniformBelow(max - min);
    if (typeof cb === 'function') {
      realSetImmediate(cb, null, n);
      return undefined;
    }
    return n;
  };
  crypto.randomUUID = function randomUUID() {
    return uuid4();
  };
  const getRandomValues = function getRandomValues(arr) {
    fillRandom(viewBytes(arr));
    return arr;
  };
  // crypto.getRandomValues is a fixed getter that calls webcrypto's, patched here
  for (const wc of new Set([crypto.webcrypto, globalThis.crypto])) {
    if (!wc) continue;
    Object.defineProperty(wc, 'getRandomValues', { value: getRandomValues, writable: true, configurable: true });
    Object.defineProperty(wc, 'randomUUID', { value: crypto.randomUUID, writable: true, configurable: true });
  }
}

// ---- clocks and timers -----------------------------------------------------
// @sinonjs/fake-timers fakes setTimeout/setInterval (global, `timers`,
// `timers/promises`) and Date. Its clock.now is the wall clock in ms; timers
// fire on the monotonic clock: `off` = clock.now - (mono position in ms),
// so a timer is due at mono ms (callAt - off). setSystemTime moves Date and
// shifts every timer with it, which keeps them on mono across wall jumps.
// performance.now, process.hrtime and process.uptime are this file's own,
// on the exact mono nanoseconds.

let clock = null;
let off = 0; // clock.now - mono ms position
let wallNs = 0n;
let monoNs = 0n;
let anchorMono = 0n; // mono at the clock's anchorNow, while advancing
let anchorNow = 0;
let capMono = 0n; // mono never reads past the advance's target
let clockReads = 0;

function countRead() {
  if (++clockReads >= SPIN_LIMIT) {
    finding('spins: a million clock reads without a wait (a busy loop the simulation cannot advance)');
  }
}

function monoNow() {
  let m = anchorMono + BigInt(clock.now - anchorNow) * NS_PER_MS;
  if (m > capMono) m = capMono;
  if (m < anchorMono) m = anchorMono;
  return m;
}

function resolveFakeTimers(programDir) {
  // the program's folder (and those above it), $LOCKSIM_NODE_MODULES, then
  // the controller's working folder
  const paths = [programDir];
  if (process.env.LOCKSIM_NODE_MODULES) paths.push(process.env.LOCKSIM_NODE_MODULES);
  paths.push(process.cwd());
  try {
    return require(require.resolve('@sinonjs/fake-timers', { paths }));
  } catch (e) {
    if (e && e.code === 'MODULE_NOT_FOUND') {
      throw new Error(
        `cannot find package @sinonjs/fake-timers from ${paths.join(' or ')} ` +
          '(run scripts/foreign-deps.sh, or npm install it beside the program, or set LOCKSIM_NODE_MODULES)',
      );
    }
    throw e;
  }
}

function installClocks(FakeTimers, wall, mono) {
  wallNs = wall;
  monoNs = mono;
  clock = FakeTimers.withGlobal(globalThis).install({
    now: floorMs(wall),
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  });
  off = clock.now - floorMs(mono);
  anchorMono = mono;
  anchorNow = clock.now;
  capMono = mono;

  const FakeDate = globalThis.Date;
  const fakeNow = FakeDate.now;
  FakeDate.now = function now() {
    countRead();
    return fakeNow.call(FakeDate);
  };
  globalThis.Date = new Proxy(FakeDate, {
    apply(target, thisArg, args) {
      countRead();
      return Reflect.apply(target, thisArg, args);
    },
    construct(target, args, newTarget) {
      if (args.length === 0) countRead();
      return Reflect.construct(target, args, newTarget === globalThis.Date ? target : newTarget);
    },
  });

  const perf = globalThis.performance;
  const timeOrigin = Number(wall - mono) / 1e6;
  Object.defineProperty(perf, 'now', {
    value: function now() {
      countRead();
      return Number(monoNow()) / 1e6;
    },
    writable: true,
    configurable: true,
  });
  Object.defineProperty(perf, 'timeOrigin', { value: timeOrigin, writable: true, configurable: true });

  const hrtime = function hrtime(prev) {
    countRead();
    const m = monoNow();
    let s = m / 1000000000n;
    let ns = m % 1000000000n;
    if (Array.isArray(prev)) {
      s -= BigInt(prev[0]);
      ns -= BigInt(prev[1]);
      if (ns < 0n) {
        s -= 1n;
        ns += 1000000000n;
      }
    }
    return [Number(s), Number(ns)];
  };
  hrtime.bigint = function bigint() {
    countRead();
    return monoNow();
  };
  process.hrtime = hrtime;
  process.uptime = function uptime() {
    countRead();
    return Number(monoNow()) / 1e9; // mono counts from the incarnation's start
  };
  os.uptime = function uptime() {
    finding("reads an unpatched clock: os.uptime() (the host's uptime)");
  };
}

function monoMsPos() {
  return clock.now - off;
}

// nextDueMs is the mono ms at which the earliest fake timer is due, or null.
function nextDueMs() {
  if (!clock.timers) return null;
  let min = null;
  for (const t of clock.timers.values()) {
    if (min === null || t.callAt < min) min = t.callAt;
  }
  return min === null ? null : min - off;
}

// beginAdvance points the clocks at a message's (wall, mono): Date jumps to
// where it will be once the mono distance is covered, and the timers due on
// the way fire one a turn (advanceStep), as Node's timers phase runs them.
let advancing = null; // {targetMs, then}
function beginAdvance(msg, then) {
  const wall = nsField(msg, 'wall');
  let mono = nsField(msg, 'mono');
  if (mono < monoNs) mono = monoNs; // mono never goes back
  const targetMs = floorMs(mono);
  const k = targetMs - monoMsPos();
  const before = clock.now;
  clock.setSystemTime(floorMs(wall) - k);
  off += clock.now - before;
  anchorMono = monoNs;
  anchorNow = clock.now;
  capMono = mono;
  wallNs = wall;
  monoNs = mono;
  advancing = { targetMs, then };
}

function advanceStep() {
  const due = nextDueMs();
  if (due !== null && due <= advancing.targetMs) {
    clock.next();
    return;
  }
  const rest = advancing.targetMs - monoMsPos();
  if (rest > 0) clock.tick(rest);
  anchorMono = monoNs;
  anchorNow = clock.now;
  capMono = monoNs;
  const then = advancing.then;
  advancing = null;
  then();
}

// ---- connections -----------------------------------------------------------

let nodes = [];
let nextConn = 1;
const conns = new Map(); // id -> SimSocket, open ones, in id order

function formatAddr(host, port) {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function parseConnectArgs(args) {
  let opts = {};
  let cb;
  if (args.length > 0 && Array.isArray(args[0])) args = args[0]; // Node's internal normalized form
  if (args[0] !== null && typeof args[0] === 'object') {
    opts = args[0];
    cb = args[1];
  } else if (typeof args[0] === 'string' && !/^[0-9]+$/.test(args[0])) {
    opts = { path: args[0] };
    cb = args[1];
  } else {
    opts = { port: args[0] };
    if (typeof args[1] === 'string') {
      opts.host = args[1];
      cb = args[2];
    } else {
      cb = args[1];
    }
  }
  return { opts, cb: typeof cb === 'function' ? cb : undefined };
}

class SimSocket extends Duplex {
  constructor(options) {
    super({ allowHalfOpen: false, emitClose: true, autoDestroy: true });
    void options;
    this.connecting = false;
    this.pending = true;
    this.conn = 0;
    this.remoteAddress = undefined;
    this.remotePort = undefined;
    this.remoteFamily = undefined;
    this.localAddress = undefined;
    this.localPort = undefined;
    this.bytesRead = 0;
    this._simEofSeen = false;
    this._simClosed = false;
    this._simEnded = false;
    this._idleMs = 0;
    this._idleTimer = null;
  }

  get bytesWritten() {
    return this._simWritten || 0;
  }

  get readyState() {
    if (this.connecting) return 'opening';
    if (this.readable && this.writable) return 'open';
    if (this.readable) return 'readOnly';
    if (this.writable) return 'writeOnly';
    return 'closed';
  }

  connect(...args) {
    const { opts, cb } = parseConnectArgs(args);
    if (this.conn !== 0) throw new Error('locksim: a socket connects once');
    let addr;
    if (opts.path !== undefined) {
      addr = String(opts.path);
    } else {
      const host = opts.host === undefined || opts.host === null || opts.host === '' ? 'localhost' : String(opts.host);
      addr = formatAddr(host, Number(opts.port));
    }
    if (!nodes.includes(addr)) {
      finding(`dials ${addr}, which is not one of the run's nodes (${nodes.join(', ')})`);
    }
    if (cb) this.once('connect', cb);
    if (opts.timeout) this.setTimeout(opts.timeout);
    this.conn = nextConn++;
    conns.set(this.conn, this);
    this.connecting = true;
    send({ op: 'connect', conn: this.conn, addr });
    const port = opts.port === undefined ? undefined : Number(opts.port);
    realSetImmediate(() => {
      if (this.destroyed) return;
      this.connecting = false;
      this.pending = false;
      this.remoteAddress = opts.path !== undefined ? undefined : opts.host || '127.0.0.1';
      this.remotePort = port;
      this.remoteFamily = opts.path !== undefined ? undefined : 'IPv4';
      this.localAddress = opts.path !== undefined ? undefined : '127.0.0.1';
      this.localPort = opts.path !== undefined ? undefined : 40000 + this.conn;
      this._touch();
      this.emit('connect');
      this.emit('ready');
    });
    return this;
  }

  _write(chunk, encoding, cb) {
    this._simSend(chunk);
    cb();
  }

  _writev(chunks, cb) {
    this._simSend(Buffer.concat(chunks.map((c) => c.chunk)));
    cb();
  }

  _simSend(buf) {
    if (this._simClosed || this.conn === 0) return;
    this._simWritten = (this._simWritten || 0) + buf.length;
    send({ op: 'send', conn: this.conn, data: buf.toString('base64') });
    this._touch();
  }

  _read() {}

  _final(cb) {
    // our FIN; the node answers it by closing its side, as Redis does
    this._simClose();
    cb();
    process.nextTick(() => this._simEnd());
  }

  _destroy(err, cb) {
    this._simClose();
    if (this._idleTimer !== null) {
      clock.clearTimeout(this._idleTimer);
      this._idleTimer = null;
    }
    cb(err);
  }

  _simClose() {
    if (this._simClosed) return;
    this._simClosed = true;
    conns.delete(this.conn);
    if (this.conn !== 0 && !this._simEofSeen) send({ op: 'close', conn: this.conn });
  }

  _simEnd() {
    if (this._simEnded) return;
    this._simEnded = true;
    this.push(null);
  }

  _simData(buf) {
    this.bytesRead += buf.length;
    this._touch();
    this.push(buf);
  }

  _simEof() {
    this._simEofSeen = true;
    this._simClosed = true;
    conns.delete(this.conn);
    this._simEnd();
  }

  _touch() {
    if (this._idleTimer !== null) {
      clock.clearTimeout(this._idleTimer);
      this._idleTimer = null;
    }
    if (this._idleMs > 0 && !this.destroyed && !this._simClosed) {
      this._idleTimer = clock.setTimeout(() => {
        this._idleTimer = null;
        this.emit('timeout');
      }, this._idleMs);
    }
  }

  setTimeout(ms, cb) {
    this._idleMs = Number(ms) || 0;
    if (typeof cb === 'function') {
      if (this._idleMs === 0) this.removeListener('timeout', cb);
      else this.once('timeout', cb);
    }
    this._touch();
    return this;
  }

  setNoDelay() {
    return this;
  }
  setKeepAlive() {
    return this;
  }
  ref() {
    return this;
  }
  unref() {
    return this;
  }
  setEncoding(enc) {
    return super.setEncoding(enc);
  }
  address() {
    return this.localAddress === undefined ? {} : { address: this.localAddress, family: 'IPv4', port: this.localPort };
  }
  resetAndDestroy() {
    return this.destroy();
  }
}

function patchNet() {
  const createConnection = function createConnection(...args) {
    const { opts } = parseConnectArgs(args);
    return new SimSocket(opts).connect(...args);
  };
  net.createConnection = createConnection;
  net.connect = createConnection;
  net.Socket = SimSocket;
  net.Stream = SimSocket;
  const tlsFinding = function connect() {
    finding('dials TLS (tls.connect): the simulated nodes speak plain RESP');
  };
  tls.connect = tlsFinding;
}

// ---- threads and processes -------------------------------------------------

function patchConcurrency() {
  const cp = require('child_process');
  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
    cp[name] = function () {
      finding(`starts a process (child_process.${name}): the simulation cannot see it`);
    };
  }
  const wt = require('worker_threads');
  wt.Worker = function Worker() {
    finding('starts a thread (worker_threads.Worker): the simulation cannot see it');
  };
  const cluster = require('cluster');
  cluster.fork = function fork() {
    finding('starts a process (cluster.fork): the simulation cannot see it');
  };
}

// ---- console -> log --------------------------------------------------------

function patchConsole() {
  for (const level of ['log', 'info', 'warn', 'error', 'debug', 'trace']) {
    console[level] = (...args) => {
      for (const line of util.format(...args).split('\n')) send({ op: 'log', msg: line });
    };
  }
}

// ---- the program's view: require('locksim') --------------------------------

function deepFreeze(v) {
  if (v !== null && typeof v === 'object') {
    for (const k of Object.keys(v)) deepFreeze(v[k]);
    Object.freeze(v);
  }
  return v;
}

function installLocksimModule(init) {
  const id = path.join(__dirname, '<locksim>');
  const api = Object.freeze({
    name: init.name,
    nodes: Object.freeze(init.nodes.slice()),
    params: deepFreeze(JSON.parse(JSON.stringify(init.params || {}))),
    seed: init.seed,
    log(...args) {
      send({ op: 'log', msg: util.format(...args) });
    },
  });
  const m = new Module(id, null);
  m.filename = id;
  m.loaded = true;
  m.exports = api;
  Module._cache[id] = m;
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    if (request === 'locksim') return id;
    return resolve.call(this, request, ...rest);
  };
}

// ---- results -----------------------------------------------------------------

function errorLine(e) {
  let s;
  if (e instanceof Error || (e !== null && typeof e === 'object' && 'message' in e)) {
    const name = e.name || (e.constructor && e.constructor.name) || 'Error';
    const msg = String(e.message === undefined ? '' : e.message);
    s = msg === '' ? String(name) : `${name}: ${msg}`;
  } else {
    s = `Error: ${String(e)}`;
  }
  return s.replace(/\s*\n\s*/g, ' ').trim();
}

function tokenOf(v) {
  if (typeof v === 'string') return v;
  if (v !== null && (typeof v === 'object' || typeof v === 'function')) {
    try {
      if (typeof v.value === 'string') return v.value;
    } catch (_) {
      // a getter that throws: no token
    }
  }
  return null;
}

// ---- the driver --------------------------------------------------------------

const LOCK_FNS = ['acquire', 'release', 'extend'];
let program = null;
let lease;
let phase = 'load'; // load | between | call
let call = null; // {fn, started, settled, ok, value}
let turnsWithoutWait = 0;

function busy() {
  for (const r of process.getActiveResourcesInfo()) {
    if (r === 'Immediate' || r.includes('Req') || r === 'WriteWrap' || r === 'ShutdownWrap') return true;
    if (r === 'Timeout') {
      finding('uses a real timer the shim did not fake (a native Timeout is pending)');
    }
  }
  return false;
}

function settle(ok, value) {
  if (call === null || !call.started || call.settled) return false;
  call.settled = true;
  call.ok = ok;
  call.value = value;
  return true;
}

function uncaught(e) {
  if (!settle(false, e)) {
    send({ op: 'log', msg: `uncaught outside a call: ${errorLine(e)}` });
  }
}

function startCall() {
  const fn = call.fn;
  call.started = true;
  const f = program[fn];
  if (typeof f !== 'function') {
    settle(false, new TypeError(`the program does not export ${fn}`));
    return;
  }
  let p;
  try {
    p = fn === 'acquire' ? f.call(program) : f.call(program, lease);
  } catch (e) {
    settle(false, e);
    return;
  }
  const mine = call;
  Promise.resolve(p).then(
    (v) => {
      if (call === mine) settle(true, v);
    },
    (e) => {
      if (call === mine) settle(false, e);
    },
  );
}

function finishCall() {
  const c = call;
  call = null;
  phase = 'between';
  if (c.ok) {
    const v = c.value;
    if (c.fn === 'acquire') lease = v;
    // redlock 5's extend returns a new Lock and expires the old one: an
    // object that extend returns is the lease from then on
    if (c.fn === 'extend' && v !== null && typeof v === 'object') lease = v;
    sendNow({ op: 'return', held: Boolean(v), token: tokenOf(v) });
  } else {
    sendNow({ op: 'raise', error: errorLine(c.value) });
  }
  inCall = false;
}

function deliver(ev) {
  switch (ev.ev) {
    case 'data': {
      const s = conns.get(ev.conn);
      if (typeof ev.data !== 'string') die(`controller's data event has no data: ${JSON.stringify(ev)}`);
      if (s !== undefined) s._simData(Buffer.from(ev.data, 'base64'));
      else if (!Number.isInteger(ev.conn) || ev.conn < 1 || ev.conn >= nextConn) die(`controller sent data for connection ${ev.conn}, never opened`);
      return;
    }
    case 'eof': {
      const s = conns.get(ev.conn);
      if (s !== undefined) s._simEof();
      else if (!Number.isInteger(ev.conn) || ev.conn < 1 || ev.conn >= nextConn) die(`controller sent eof for connection ${ev.conn}, never opened`);
      return;
    }
    case 'timeout':
      return;
    default:
      die(`controller sent an event ${JSON.stringify(ev.ev)}, want data, eof or timeout`);
  }
}

function waitForEvent() {
  const due = nextDueMs();
  const ids = [...conns.keys()].sort((a, b) => a - b);
  if (due === null && ids.length === 0) {
    settle(false, new Error(`locksim: ${call.fn}() never settles: it waits on nothing (no timer, no open connection)`));
    return;
  }
  let timeout = null;
  if (due !== null) {
    let t = BigInt(due) * NS_PER_MS - monoNs;
    if (t < 0n) t = 0n;
    timeout = t.toString();
  }
  sendNow({ op: 'wait', conns: ids, timeout });
  const ev = restAndRecv();
  if (ev.op === 'reset') {
    reuse();
    return;
  }
  if (ev.op !== 'event') die(`controller answered wait with ${JSON.stringify(ev.op)}, want event`);
  beginAdvance(ev, () => deliver(ev));
}

function nextCall() {
  const m = restAndRecv();
  if (m.op === 'reset') {
    reuse();
    return;
  }
  if (m.op !== 'call') die(`controller sent ${JSON.stringify(m.op)} between calls, want call`);
  if (!LOCK_FNS.includes(m.fn)) die(`controller called ${JSON.stringify(m.fn)}, want acquire, release or extend`);
  inCall = true;
  phase = 'call';
  for (const o of outbox.splice(0)) sendNow(o);
  call = { fn: m.fn, started: false, settled: false, ok: false, value: undefined };
  beginAdvance(m, startCall);
}

function turn() {
  if (++turnsWithoutWait >= SPIN_LIMIT) {
    finding('spins: a million event-loop turns without a wait (a busy loop the simulation cannot advance)');
  }
  if (busy()) return;
  if (advancing !== null) {
    advanceStep();
    return;
  }
  const due = nextDueMs();
  if (due !== null && due <= monoMsPos()) {
    clock.next();
    return;
  }
  if (phase === 'load') {
    phase = 'between';
    sendNow({ op: 'ready', fns: LOCK_FNS.filter((n) => typeof program[n] === 'function') });
    return;
  }
  if (phase === 'call') {
    if (call.settled) finishCall();
    else waitForEvent();
    return;
  }
  nextCall();
}

function loop() {
  try {
    turn();
  } catch (e) {
    uncaught(e);
  }
  realSetImmediate(loop);
}

// ---- reuse -------------------------------------------------------------------
// A worker whose run ends while it waits for a call or an event (no program
// code on its stack, nothing due) can serve another incarnation: the
// controller sends reset, and the shim puts the process back as it was
// before its first init, then says hello again. "As it was" is what a
// program can reach: the own properties of the globals, of every builtin
// module the shim loaded before the snapshot, of their exports' objects and
// classes' prototypes (Module._cache and process.env among them: the module
// cache empties); the working folder, process's listeners. A program that
// leaves the process where the shim cannot put it back (a frozen builtin, a
// property that cannot be deleted, a builtin module loaded that was not
// loaded before) makes the worker send refuse, saying why, and exit; the
// controller starts that program's workers fresh from then on. Reloading a
// program's modules in a warm process costs about a quarter of a fresh
// start (V8 keeps their compiled code).

// SKIP_BUILTINS are not loaded before the snapshot: loading them changes
// the process (domain's hooks, deprecation warnings) or is experimental.
const SKIP_BUILTINS = new Set(['domain', 'inspector', 'inspector/promises', 'punycode', 'repl', 'sys', 'test', 'trace_events', 'wasi']);
const PUBLIC_BUILTINS = new Set(Module.builtinModules);

function loadedBuiltins() {
  const out = new Set();
  for (const e of process.moduleLoadList) {
    if (e.startsWith('NativeModule ') && PUBLIC_BUILTINS.has(e.slice(13))) out.add(e.slice(13));
  }
  return out;
}

// EMITTER_KEYS are an EventEmitter's listener bookkeeping: process's
// listeners are put back by listener, not by these properties.
const EMITTER_KEYS = new Set(['_events', '_eventsCount']);

function snapshotProcess() {
  for (const name of Module.builtinModules) {
    if (!name.startsWith('_') && !name.includes(':') && !SKIP_BUILTINS.has(name)) require(name);
  }
  const objs = [];
  const seen = new Set();
  const track = (o, name) => {
    if (o === null || (typeof o !== 'object' && typeof o !== 'function') || seen.has(o) || o === process.moduleLoadList) return;
    seen.add(o);
    const props = new Map();
    const values = new Map();
    for (const k of Reflect.ownKeys(o)) {
      if (o === process && EMITTER_KEYS.has(k)) continue;
      const d = Object.getOwnPropertyDescriptor(o, k);
      props.set(k, d);
      if (d.get && d.set && settable(o, name)) {
        const v = readSetting(o, k);
        if (v !== NOT_A_SETTING) values.set(k, v);
      }
    }
    objs.push({ o, name, props, values, extensible: Object.isExtensible(o) });
  };
  // an object, its data properties' objects, and their prototypes
  const trackDeep = (o, name) => {
    track(o, name);
    if (o === null || (typeof o !== 'object' && typeof o !== 'function')) return;
    for (const k of Reflect.ownKeys(o)) {
      const d = Object.getOwnPropertyDescriptor(o, k);
      if (!d || !('value' in d)) continue;
      track(d.value, `${name}.${String(k)}`);
      if (typeof d.value === 'function') {
        const pd = Object.getOwnPropertyDescriptor(d.value, 'prototype');
        if (pd && 'value' in pd) track(pd.value, `${name}.${String(k)}.prototype`);
      }
    }
  };
  trackDeep(globalThis, 'globalThis');
  trackDeep(globalThis.performance, 'globalThis.performance');
  trackDeep(globalThis.crypto, 'globalThis.crypto');
  for (const name of loadedBuiltins()) trackDeep(require(name), `require('${name}')`);
  const listeners = new Map();
  for (const ev of process.eventNames()) listeners.set(ev, process.rawListeners(ev));
  return {
    objs,
    listeners,
    cwd: process.cwd(),
    builtins: loadedBuiltins(),
  };
}

// A setting is a primitive a builtin keeps behind a getter and a setter
// (events.defaultMaxListeners, buffer.INSPECT_MAX_BYTES, process.exitCode):
// its descriptor stays the same when the program sets it, so its value is
// saved too. globalThis's accessors are lazy globals (fetch and the like:
// reading one loads it), a prototype's read an instance's state, and
// RegExp's legacy statics ($1, lastMatch) change with every match: none is
// read.
const NOT_A_SETTING = Symbol('not a setting');
function settable(o, name) {
  return o !== globalThis && o !== RegExp && !name.endsWith('.prototype');
}
function readSetting(o, k) {
  let v;
  try {
    v = Reflect.get(o, k);
  } catch (_) {
    return NOT_A_SETTING;
  }
  return v === null || (typeof v !== 'object' && typeof v !== 'function') ? v : NOT_A_SETTING;
}

function sameDescriptor(a, b) {
  return (
    a.value === b.value &&
    a.get === b.get &&
    a.set === b.set &&
    a.writable === b.writable &&
    a.enumerable === b.enumerable &&
    a.configurable === b.configurable
  );
}

// restoreProcess puts back what snapshotProcess saw: '' when it has, else
// what it could not put back.
function restoreProcess(snap) {
  for (const b of loadedBuiltins()) if (!snap.builtins.has(b)) return `the program loaded ${b}, a builtin not loaded before`;
  for (const ev of process.eventNames()) process.removeAllListeners(ev);
  for (const [ev, fns] of snap.listeners) for (const fn of fns) process.on(ev, fn);
  for (const { o, name, props, values, extensible } of snap.objs) {
    if (Object.isExtensible(o) !== extensible) return `the program froze or sealed ${name}`;
    for (const k of Reflect.ownKeys(o)) {
      if (o === process && EMITTER_KEYS.has(k)) continue;
      if (!props.has(k) && !Reflect.deleteProperty(o, k)) return `the program defined ${name}.${String(k)}, which cannot be deleted`;
    }
    for (const [k, d] of props) {
      const now = Object.getOwnPropertyDescriptor(o, k);
      if (now !== undefined && sameDescriptor(now, d)) continue;
      try {
        Object.defineProperty(o, k, d);
      } catch (_) {
        return `the program redefined ${name}.${String(k)}, which cannot be put back`;
      }
    }
    for (const [k, v] of values) {
      try {
        if (!Object.is(Reflect.get(o, k), v)) Reflect.set(o, k, v);
      } catch (_) {
        // checked below
      }
      if (!Object.is(readSetting(o, k), v)) return `the program set ${name}.${String(k)}, which cannot be set back`;
    }
  }
  if (process.cwd() !== snap.cwd) process.chdir(snap.cwd);
  Module.syncBuiltinESMExports();
  return '';
}

// resetState is the shim's own state as at load (inBuf keeps what the
// controller has sent already).
function resetState() {
  inCall = false;
  outbox.length = 0;
  nextMath = null;
  nextBytes64 = null;
  byteCache = 0n;
  byteCacheLeft = 0;
  clock = null;
  off = 0;
  wallNs = 0n;
  monoNs = 0n;
  anchorMono = 0n;
  anchorNow = 0;
  capMono = 0n;
  clockReads = 0;
  advancing = null;
  nodes = [];
  nextConn = 1;
  conns.clear();
  program = null;
  lease = undefined;
  phase = 'load';
  call = null;
  turnsWithoutWait = 0;
}

// RESETTABLE: the controller may reset this worker (--reset); without it
// the shim takes no snapshot and a reset ends the worker.
const RESETTABLE = process.argv.includes('--reset');
let pristine = null;
let atRest = false; // in the recv of a wait or between calls

// restAndRecv is recv where a reset may come.
function restAndRecv() {
  atRest = RESETTABLE;
  const m = recv();
  atRest = false;
  return m;
}

function reuse() {
  try {
    clock.uninstall();
    const refused = restoreProcess(pristine);
    if (refused !== '') {
      sendNow({ op: 'refuse', msg: refused });
      process.exit(0);
    }
  } catch (e) {
    sendNow({ op: 'refuse', msg: `the reset raised ${errorLine(e)}` });
    process.exit(0);
  }
  resetState();
  begin();
}

// ---- start -------------------------------------------------------------------

// begin says hello, takes init and loads the program.
function begin() {
  sendNow({ op: 'hello', lang: 'node', version: process.version, pid: process.pid });
  const init = recv();
  if (init.op !== 'init') die(`controller sent ${JSON.stringify(init.op)} first, want init`);
  if (typeof init.program !== 'string' || !path.isAbsolute(init.program)) {
    die(`init's program is ${JSON.stringify(init.program)}, want an absolute path`);
  }
  if (!Array.isArray(init.nodes) || !init.nodes.every((n) => typeof n === 'string')) {
    die(`init's nodes is ${JSON.stringify(init.nodes)}, want a list of host:port strings`);
  }
  if (typeof init.seed !== 'string' || !/^[0-9]+$/.test(init.seed) || BigInt(init.seed) > M64) {
    die(`init's seed is ${JSON.stringify(init.seed)}, want a decimal string of a uint64`);
  }
  const wall = nsField(init, 'wall');
  const mono = nsField(init, 'mono');
  nodes = init.nodes.slice();

  let FakeTimers;
  try {
    FakeTimers = resolveFakeTimers(path.dirname(init.program));
  } catch (e) {
    sendNow({ op: 'raise', error: errorLine(e) });
    for (;;) recv(); // the controller ends us
  }
  installClocks(FakeTimers, wall, mono);
  patchRandom(BigInt(init.seed));
  patchNet();
  patchConcurrency();
  patchConsole();
  Module.syncBuiltinESMExports();
  installLocksimModule(init);
  process.on('uncaughtException', uncaught);
  process.on('unhandledRejection', uncaught);

  try {
    let mod = require(init.program);
    if (mod && typeof mod === 'object' && !LOCK_FNS.some((n) => typeof mod[n] === 'function') && mod.default) {
      mod = mod.default;
    }
    program = mod !== null && (typeof mod === 'object' || typeof mod === 'function') ? mod : {};
  } catch (e) {
    sendNow({ op: 'raise', error: errorLine(e) });
    for (;;) recv();
  }
}

if (RESETTABLE) pristine = snapshotProcess();
begin();
realSetImmediate(loop);
