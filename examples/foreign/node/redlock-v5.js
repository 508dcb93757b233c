// locksim: ttl=10s nodes=3 extend=yes source=redlock@5.0.0-beta.2
// Redlock 5, as its README sets it up: one ioredis client per node (so this
// file runs unchanged against 1 node or 3), redlock's default settings:
//   driftFactor 0.01, retryCount 10, retryDelay 200 ms, retryJitter 100 ms,
//   automaticExtensionThreshold 500 ms (only for redlock.using, not used here).
// acquire takes the lock for 10 s or returns null when redlock gives up
// (an ExecutionError: no quorum within its retries; redlock has then already
// asked every node to drop what it got). extend returns the new Lock, which
// the shim keeps as the lease. ioredis has no command timeout: a lost reply
// is waited for until its connection closes.
'use strict';

const Client = require('ioredis');
// "redlock" in redlock's README; installed as redlock5 so that 4 and 5 share one package.json
const { default: Redlock, ExecutionError } = require('redlock5');
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
  automaticExtensionThreshold: 500,
});

// redlock emits per-node failures as "error"; a minority of them is normal.
redlock.on('error', () => {});

async function acquire() {
  try {
    return await redlock.acquire([KEY], TTL_MS);
  } catch (e) {
    if (e instanceof ExecutionError) return null;
    throw e;
  }
}

// release answers false when a quorum would not drop the lock (it had
// expired, or nodes did not answer): redlock's README calls the error safe to
// ignore, as the lock expires by itself.
async function release(lock) {
  try {
    await lock.release();
    return true;
  } catch (e) {
    if (e instanceof ExecutionError) return false;
    throw e;
  }
}

async function extend(lock) {
  try {
    return await lock.extend(TTL_MS);
  } catch (e) {
    if (e instanceof ExecutionError) return null;
    throw e;
  }
}

module.exports = { acquire, release, extend };
