// locksim: ttl=2s source=sim/foreign's tests: what an earlier incarnation in the same process left behind
// Each load looks for what an earlier load in the same process would have
// left (a global, process.env, a builtin's export, prototype and setting,
// Math, a process listener, a cached module, the working folder), then
// leaves it: a reset worker must show none of it
// (TestResetWorkerIsPristine). acquire raises naming what it found.
const util = require('util');
const events = require('events');
const counter = require('./marks-counter.js');
const locksim = require('locksim');

counter.loads++;
const found = [];
if (globalThis.__locksimMark !== undefined) found.push('a global');
if (process.env.LOCKSIM_MARK !== undefined) found.push('process.env');
if (util.__locksimMark !== undefined) found.push("a builtin module's export");
if (events.prototype.__locksimMark !== undefined) found.push('a builtin prototype');
if (Math.__locksimMark !== undefined) found.push('Math');
if (process.listenerCount('locksim-mark') > 0) found.push('a process listener');
if (process.getMaxListeners() !== 10) found.push("process's listener limit");
if (counter.loads > 1) found.push('a cached module');
if (process.cwd() === '/') found.push('the working folder');
if (events.defaultMaxListeners !== 10) found.push("a builtin's setting");

globalThis.__locksimMark = 'left';
process.env.LOCKSIM_MARK = 'left';
util.__locksimMark = 'left';
events.prototype.__locksimMark = 'left';
Math.__locksimMark = 'left';
process.on('locksim-mark', () => {});
process.setMaxListeners(42);
process.chdir('/');
events.defaultMaxListeners = 42;

module.exports = {
  async acquire() {
    if (require('locksim') !== locksim) found.push('this program, not loaded again');
    if (found.length > 0) throw new Error(`left by an earlier incarnation: ${found.join(', ')}`);
    return 'marks';
  },
  async release() {},
};
