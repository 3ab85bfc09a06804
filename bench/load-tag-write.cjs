// The load benchmark's write (bench/load.bench.ts): a tag with a fresh name. A file of its own because autocannon
// runs in a worker thread, which takes request hooks as a path it can require, never as a function.
const run = `${process.pid}-${Date.now().toString(36)}`;
let n = 0;
module.exports = (req) => {
  n += 1;
  return { ...req, body: JSON.stringify({ name: `load-${run}-${n}`, slug: `load-${run}-${n}` }) };
};
