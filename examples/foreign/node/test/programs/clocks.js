// locksim: ttl=1s
// reports its clocks, random numbers and timers as the token
const crypto = require('crypto');
const { setTimeout: sleep } = require('timers/promises');
exports.acquire = async () => {
  const t0 = [Date.now(), performance.now(), process.hrtime.bigint()];
  await new Promise((resolve) => setTimeout(resolve, 250));
  await sleep(100);
  const t1 = [Date.now(), performance.now(), process.hrtime.bigint(), new Date().toISOString()];
  const r = [Math.random(), crypto.randomBytes(4).toString('hex'), crypto.randomUUID(), crypto.randomInt(1000)];
  return JSON.stringify({ t0: t0.map(String), t1: t1.map(String), r });
};
exports.extend = async () => 1;
exports.release = async () => true;
