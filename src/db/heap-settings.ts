// V8's allocation-site pretenuring off, in every process that reads rows through node-pg (database.ts imports this
// first). Why, as far as the measurements tell: node-pg holds a result's rows until its last one has arrived, so a
// scavenge that falls inside a read finds most of the row site's objects alive, and V8 starts allocating them
// straight into the old generation. Those rows die young, but only a full collection frees old objects; until then
// each keeps its young strings and Dates alive, so every scavenge copies and promotes them.
// Measured on a process reading pages of 1,000 tags, in about two runs of three: scavenges of 15-20 ms promoting
// half of the young generation (3-4 MB each), against 1-3 ms promoting nothing with this setting, and the bare
// read 5.4-6.9 ms against 3.3-4.1 ms; the tag list over HTTP 5.8-7.9 ms against 5.0-5.4 ms.
// Set at run time rather than as a command-line flag because `cairn` is started in many ways (npm start, the bin,
// systemd units, the upgrade engine, tests); set before the first query, it took effect in every run measured.
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--no-allocation-site-pretenuring');
