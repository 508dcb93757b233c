// locksim: ttl=1s
// starts a thread
const { Worker } = require('worker_threads');
exports.acquire = async () => {
  new Worker('1', { eval: true });
  return 'never';
};
exports.release = async () => true;
