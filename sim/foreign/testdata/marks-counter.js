// How many times marks.js has loaded this module in this process.
module.exports = { loads: 0 };
