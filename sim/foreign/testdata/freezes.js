// locksim: ttl=2s source=sim/foreign's tests: a program that freezes a builtin module
// Freezing os leaves the process where a reset cannot put it back: its
// worker exits instead of serving another run (TestResetRefusedFreshStart).
Object.freeze(require('os'));

module.exports = {
  async acquire() {
    return 'frozen';
  },
  async release() {},
};
