// locksim: ttl=1s
// dials an address that is not a node of the run
const net = require('net');
exports.acquire = async () => {
  net.connect(6379, '10.0.0.1');
  return 'never';
};
exports.release = async () => true;
