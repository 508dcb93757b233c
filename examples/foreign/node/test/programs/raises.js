// locksim: ttl=1s
// raises an error whose message has two lines
exports.acquire = async () => {
  const e = new RangeError('first line\nsecond line');
  throw e;
};
exports.release = async () => true;
