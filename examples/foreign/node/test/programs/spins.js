// locksim: ttl=1s
// waits for its deadline by reading the clock in a loop
exports.acquire = async () => {
  const until = Date.now() + 1000;
  while (Date.now() < until) {
    // spin
  }
  return 'late';
};
exports.release = async () => true;
