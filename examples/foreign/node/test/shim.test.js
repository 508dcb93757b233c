'use strict';
// The Node shim (sim/foreign/shim/node/locksim.js) alone, against
// fakecontroller.js: protocol version 1 as docs/foreign.md writes it, the
// same bytes for the same seed, and the findings. The runs that talk to
// Redis need a redis-server: $LOCKSIM_REDIS (host:port), else one started
// here from redis-server on the PATH; without either they skip, saying so.
//
//   cd examples/foreign/node && npm ci && npm test

const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const os = require('os');
const fs = require('fs');
const { spawn, execFileSync } = require('child_process');
const { run, WALL0 } = require('./fakecontroller');

const HERE = path.join(__dirname, '..');
const prog = (name) => path.join(HERE, name);
const testProg = (name) => path.join(__dirname, 'programs', name);

let redis = process.env.LOCKSIM_REDIS || null;
let server = null;
let noRedis = '';

test.before(async () => {
  if (redis) return;
  let bin;
  try {
    bin = execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
  } catch (_) {
    noRedis = 'no redis-server on the PATH and no LOCKSIM_REDIS';
    return;
  }
  const port = 20000 + (process.pid % 20000);
  server = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const net = require('net');
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) {
      redis = `127.0.0.1:${port}`;
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  noRedis = `redis-server on port ${port} did not come up`;
});

test.after(() => {
  if (server) server.kill('SIGTERM');
});

function needsRedis(t) {
  if (!redis) {
    t.skip(noRedis);
    return false;
  }
  return true;
}

// withoutHello is the transcript less the hello line (it has the pid).
const withoutHello = (t) => t.lines.filter((l) => !l.startsWith('→ {"op":"hello"'));
const sent = (t, op) => t.lines.filter((l) => l.startsWith(`→ {"op":"${op}"`));

test('setnx-px: acquire, release; same seed, same bytes', async (t) => {
  if (!needsRedis(t)) return;
  const opts = { program: prog('setnx-px.js'), seed: '12345', calls: ['acquire', 'release', 'release', 'acquire'], redis };
  const a = await run(opts);
  const [ready, got, released, again, got2] = a.results;
  assert.deepStrictEqual(ready, { op: 'ready', fns: ['acquire', 'release'] });
  assert.strictEqual(got.op, 'return');
  assert.strictEqual(got.held, true);
  assert.match(got.token, /^[0-9a-f]{32}$/);
  assert.deepStrictEqual(released, { op: 'return', held: true, token: null });
  assert.deepStrictEqual(again, { op: 'return', held: false, token: null }, 'the key is gone: release deletes nothing');
  assert.strictEqual(got2.held, true);
  assert.notStrictEqual(got2.token, got.token, 'a new token for a new lease');
  assert.strictEqual(sent(a, 'connect').length, 1, 'one connection, opened once');
  const b = await run(opts);
  assert.deepStrictEqual(withoutHello(b), withoutHello(a));
  const c = await run({ ...opts, seed: '12346' });
  assert.notStrictEqual(c.results[1].token, got.token, 'another seed, another token');
});

for (const nodes of [1, 3]) {
  test(`redlock-v5 on ${nodes} node(s): acquire, extend, extend, release; same bytes twice`, async (t) => {
    if (!needsRedis(t)) return;
    const opts = { program: prog('redlock-v5.js'), seed: '7', nodes, calls: ['acquire', 'extend', 'extend', 'release'], redis };
    const a = await run(opts);
    const [ready, got, ext1, ext2, rel] = a.results;
    assert.deepStrictEqual(ready.fns, ['acquire', 'release', 'extend']);
    assert.strictEqual(got.held, true);
    assert.match(got.token, /^[0-9a-f]{32}$/);
    // redlock 5 expires the Lock it extends: the second extend works only
    // if the shim passes the Lock the first one returned
    assert.deepStrictEqual(ext1, { op: 'return', held: true, token: got.token });
    assert.deepStrictEqual(ext2, { op: 'return', held: true, token: got.token });
    assert.strictEqual(rel.op, 'return');
    assert.strictEqual(sent(a, 'connect').length, nodes);
    const b = await run(opts);
    assert.deepStrictEqual(withoutHello(b), withoutHello(a));
  });
}

test('redlock-v4 on 3 nodes: acquire, release', async (t) => {
  if (!needsRedis(t)) return;
  const a = await run({ program: prog('redlock-v4.js'), seed: '7', nodes: 3, calls: ['acquire', 'extend', 'release'], redis });
  assert.strictEqual(a.results[1].held, true);
  assert.match(a.results[1].token, /^[0-9a-f]{32}$/);
  assert.deepStrictEqual(a.results[2], { op: 'return', held: true, token: a.results[1].token });
  assert.strictEqual(a.results[3].op, 'return');
});

test('redlock-v5 retries on fake timers: 10 jittered sleeps, then not held; same bytes twice', async (t) => {
  if (!needsRedis(t)) return;
  const opts = { program: prog('redlock-v5.js'), seed: '99', calls: ['acquire', 'acquire'], redis };
  const a = await run(opts);
  assert.strictEqual(a.results[1].held, true);
  assert.deepStrictEqual(a.results[2], { op: 'return', held: false, token: null });
  const sleeps = a.lines
    .filter((l) => l.startsWith('→ {"op":"wait"'))
    .map((l) => JSON.parse(l.slice(2)).timeout)
    .filter((x) => x !== null)
    .map((x) => Number(BigInt(x) / 1000000n));
  assert.strictEqual(sleeps.length, 10, `redlock's retryCount is 10: ${sleeps}`);
  for (const ms of sleeps) assert.ok(ms >= 99 && ms <= 300, `a sleep of retryDelay 200 ± jitter 100: ${ms} ms`);
  assert.ok(new Set(sleeps).size > 1, `the jitter varies: ${sleeps}`);
  const b = await run(opts);
  assert.deepStrictEqual(withoutHello(b), withoutHello(a));
  const c = await run({ ...opts, seed: '100' });
  assert.notDeepStrictEqual(withoutHello(c), withoutHello(a), 'another seed, other jitter');
});

test('setnx-px: an eof mid-call; ioredis reconnects on a new connection and resends', async (t) => {
  if (!needsRedis(t)) return;
  const a = await run({ program: prog('setnx-px.js'), seed: '5', calls: ['acquire'], redis, eofAt: { wait: 1, conn: 1 } });
  // the SET reached Redis and its reply was lost with the connection: the
  // resent SET finds the key (its own) and the lock is not held
  assert.deepStrictEqual(a.results[1], { op: 'return', held: false, token: null }, a.lines.join('\n'));
  const connects = sent(a, 'connect').map((l) => JSON.parse(l.slice(2)));
  assert.deepStrictEqual(connects.map((m) => m.conn), [1, 2]);
  const sends = sent(a, 'send').map((l) => JSON.parse(l.slice(2)));
  assert.deepStrictEqual(sends.map((m) => m.conn), [1, 2]);
  assert.strictEqual(sends[1].data, sends[0].data, 'the same SET, resent');
  assert.ok(!a.lines.some((l) => l === '→ {"op":"close","conn":1}'), 'no close for a connection the other side closed');
  // ioredis waits out its retryStrategy (50 ms) on a fake timer before it redials
  assert.ok(a.lines.some((l) => l.startsWith('→ {"op":"wait","conns":[],"timeout":"')), a.lines.join('\n'));
});

test('clocks, timers and randomness come from init and the events only', async () => {
  const opts = { program: testProg('clocks.js'), seed: '1', calls: ['acquire', 'extend'], redis: null };
  const a = await run(opts);
  const v = JSON.parse(a.results[1].token);
  // acquire is called at true time 1 ms: wall 1700000000001 ms, mono 1 ms
  assert.deepStrictEqual(v.t0, ['1700000000001', '1', '1000000']);
  // 250 ms then 100 ms of fake timers later
  assert.deepStrictEqual(v.t1, ['1700000000351', '351', '351000000', '2023-11-14T22:13:20.351Z']);
  assert.ok(v.r[0] >= 0 && v.r[0] < 1);
  assert.match(v.r[2], /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const waits = sent(a, 'wait');
  assert.deepStrictEqual(waits, ['→ {"op":"wait","conns":[],"timeout":"250000000"}', '→ {"op":"wait","conns":[],"timeout":"100000000"}']);
  // extend returned 1: held, no token, and the lease stays acquire's
  assert.deepStrictEqual(a.results[2], { op: 'return', held: true, token: null });
  const b = await run(opts);
  assert.deepStrictEqual(withoutHello(b), withoutHello(a));
});

test('a wall clock that jumps back 5 s moves Date, not the timers', async () => {
  const wallOf = (T) => WALL0 + T - (T > 100000000n ? 5000000000n : 0n);
  const a = await run({ program: testProg('clocks.js'), seed: '1', calls: ['acquire'], redis: null, wallOf });
  const v = JSON.parse(a.results[1].token);
  assert.deepStrictEqual(v.t0, ['1700000000001', '1', '1000000']);
  assert.deepStrictEqual(v.t1, ['1699999995351', '351', '351000000', '2023-11-14T22:13:15.351Z']);
  assert.deepStrictEqual(sent(a, 'wait'), ['→ {"op":"wait","conns":[],"timeout":"250000000"}', '→ {"op":"wait","conns":[],"timeout":"100000000"}']);
});

test('a monotonic clock slower than true time: a timer not yet due is waited for again', async () => {
  // mono runs at 99% of true time: after a 250 ms timeout it reads 247.5 ms
  const monoOf = (T) => (T * 99n) / 100n;
  const a = await run({ program: testProg('clocks.js'), seed: '1', calls: ['acquire'], redis: null, monoOf });
  const v = JSON.parse(a.results[1].token);
  // acquire starts at mono 0.99 ms, in mono millisecond 0: its 250 ms timer
  // is due at mono 250 ms (Node's timers count from the loop's whole ms),
  // the next 100 ms after that one fired
  assert.strictEqual(v.t1[1], '350', 'performance.now once the second timer fired, in mono ms');
  const waits = sent(a, 'wait').map((l) => BigInt(JSON.parse(l.slice(2)).timeout));
  assert.strictEqual(waits[0], 249010000n, 'the first wait: to mono 250 ms, from 0.99 ms');
  assert.ok(waits.length > 2 && waits[1] < 10000000n, `re-waits for the rest: ${waits}`);
  let mono = 0n;
  for (const l of a.lines.filter((x) => x.startsWith('← {"op":"event"'))) {
    const m = BigInt(JSON.parse(l.slice(2)).mono);
    assert.ok(m >= mono, 'mono never goes back');
    mono = m;
  }
  assert.strictEqual(mono, 350000000n, 'the last event is the one that reaches mono 350 ms');
});

for (const c of [
  ['dials.js', { op: 'finding', msg: "dials 10.0.0.1:6379, which is not one of the run's nodes (127.0.0.1:7001)" }],
  ['spins.js', { op: 'finding', msg: 'spins: a million clock reads without a wait (a busy loop the simulation cannot advance)' }],
  ['immediates.js', { op: 'finding', msg: 'spins: a million event-loop turns without a wait (a busy loop the simulation cannot advance)' }],
  ['thread.js', { op: 'finding', msg: 'starts a thread (worker_threads.Worker): the simulation cannot see it' }],
  ['raises.js', { op: 'raise', error: 'RangeError: first line second line' }],
  ['never.js', { op: 'raise', error: 'Error: locksim: acquire() never settles: it waits on nothing (no timer, no open connection)' }],
]) {
  test(`${c[0]}: ${c[1].op}`, async () => {
    const a = await run({ program: testProg(c[0]), seed: '1', calls: ['acquire'], redis: null });
    assert.deepStrictEqual(a.results[1], c[1]);
    if (c[1].op === 'finding') assert.deepStrictEqual(a.exit, { code: 0, signal: null }, 'a worker exits after its finding');
  });
}

test('without @sinonjs/fake-timers: init answered with a one-line raise naming it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locksim-shim-'));
  try {
    const p = path.join(dir, 'lock.js');
    fs.writeFileSync(p, 'exports.acquire = async () => "x";\nexports.release = async () => true;\n');
    const a = await run({ program: p, seed: '1', calls: [], redis: null, env: { LOCKSIM_NODE_MODULES: '' }, cwd: dir });
    assert.strictEqual(a.results[0].op, 'raise');
    assert.match(a.results[0].error, /^Error: cannot find package @sinonjs\/fake-timers from /);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a program that fails to load: raise instead of ready', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locksim-shim-'));
  try {
    const p = path.join(dir, 'lock.js');
    fs.writeFileSync(p, 'throw new TypeError("bad program");\n');
    const a = await run({ program: p, seed: '1', calls: [], redis: null, env: { LOCKSIM_NODE_MODULES: HERE } });
    assert.deepStrictEqual(a.results[0], { op: 'raise', error: 'TypeError: bad program' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
