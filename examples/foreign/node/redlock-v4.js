// locksim: ttl=10s nodes=3 extend=yes source=redlock@4.2.0
// Redlock 4, as its README sets it up: one ioredis client per node (so this
// file runs unchanged against 1 node or 3), redlock's default settings:
//   driftFactor 0.01, retryCount 10, retryDelay 200 ms, retryJitter 100 ms.
// acquire takes the lock for 10 s or returns null when redlock gives up (a
// LockError after its retries; each failed attempt has already unlocked
// what it got). Redlock 4 answers a call once every node has answered, and
// ioredis has no command timeout: a lost reply is waited for until its
// connection closes.
'use strict';

const Client = require('ioredis');
// "redlock" in redlock's README; installed as redlock4 so that 4 and 5 share one package.json
const Redlock = require('redlock4');
const locksim = require('locksim');

const TTL_MS = 10000;
const KEY = locksim.params.key || 'lock';

const clients = locksim.nodes.map((addr) => {
  const i = addr.lastIndexOf(':');
  return new Client({
    host: addr.slice(0, i),
    port: Number(addr.slice(i + 1)),
    disableClientInfo: true, // skip CLIENT SETINFO (and reading ioredis's package.json for it)
    enableReadyCheck: false, // no INFO before the first command: locksim's nodes do not answer INFO
  });
});

const redlock = new Redlock(clients, {
  driftFactor: 0.01,
  retryCount: 10,
  retryDelay: 200,
  retryJitter: 100,
});

// redlock reports per-node failures as "clientError"; a minority is normal.
redlock.on('clientError', () => {});

async function acquire() {
  try {
    return await redlock.lock(KEY, TTL_MS);
  } catch (e) {
    if (e instanceof Redlock.LockError) return null;
    throw e;
  }
}

// release answers false when a quorum would not drop the lock (it had
// expired, or nodes did not answer): redlock's README calls the error safe to
// ignore, as the lock expires by itself.
async function release(lock) {
  try {
    await lock.unlock();
    return true;
  } catch (e) {
    if (e instanceof Redlock.LockError) return false;
    throw e;
  }
}

async function extend(lock) {
  try {
    return await lock.extend(TTL_MS);
  } catch (e) {
    if (e instanceof Redlock.LockError) return null;
    throw e;
  }
}

module.exports = { acquire, release, extend };
