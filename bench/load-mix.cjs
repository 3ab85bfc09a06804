// The load benchmark's requests (bench/load.bench.ts): the reads in turn, the 20th of every 20 a write (a tag with a
// fresh name). One counter for all connections, as wrk's request() keeps one per thread: at every moment the 100
// connections send a mix. A sequence per connection would start them all on the same request and keep them in step
// (one queue serves them first come first served), so waves of one kind would pass through the server together,
// which no set of independent clients does. A file of its own because autocannon runs in a worker thread, which
// takes request hooks as a path it can require, never as a function; the reads come in LOAD_READS (a JSON array).
const reads = JSON.parse(process.env.LOAD_READS ?? '[]');
const run = `${process.pid}-${Date.now().toString(36)}`;
let n = 0;
module.exports = (req) => {
  const k = n % 20;
  n += 1;
  // autocannon keeps the headers of the last request it built: a write's Content-Length must not stay on a read.
  const headers = { ...req.headers };
  delete headers['Content-Length'];
  if (k === 19) {
    const name = `load-${run}-${n}`;
    return { ...req, headers, method: 'POST', path: '/api/tags/', body: JSON.stringify({ name, slug: name }) };
  }
  return { ...req, headers, method: 'GET', path: reads[k % reads.length], body: undefined };
};
