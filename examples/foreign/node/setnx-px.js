// locksim: ttl=10s source=redis.io/docs/latest/commands/set
// The smallest useful Redis lock, over ioredis: SET key token NX PX 10000
// with a random token, and a release that deletes the key only while it
// still holds our token (one Lua script, so the check and the delete are
// one step). No retries: acquire answers at once, held or not. ioredis's
// own retrying applies underneath (it queues commands while it reconnects,
// maxRetriesPerRequest 20), and it has no command timeout: a lost reply is
// waited for until the connection closes.
'use strict';

const crypto = require('crypto');
const Redis = require('ioredis');
const locksim = require('locksim');

const TTL_MS = 10000;
const KEY = locksim.params.key || 'lock';

const addr = locksim.nodes[0];
const redis = new Redis({
  host: addr.slice(0, addr.lastIndexOf(':')),
  port: Number(addr.slice(addr.lastIndexOf(':') + 1)),
  disableClientInfo: true, // skip CLIENT SETINFO (and reading ioredis's package.json for it)
  enableReadyCheck: false, // no INFO before the first command: locksim's nodes do not answer INFO
});

const RELEASE = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`;

// acquire returns the token when the lock is ours, null when it is taken.
async function acquire() {
  const token = crypto.randomBytes(16).toString('hex');
  const ok = await redis.set(KEY, token, 'PX', TTL_MS, 'NX');
  return ok === 'OK' ? token : null;
}

// release deletes the key if it still holds our token.
async function release(token) {
  return (await redis.eval(RELEASE, 1, KEY, token)) === 1;
}

module.exports = { acquire, release };
