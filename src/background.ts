// Every domain's background work, declared to the job registry (src/jobs/registry.ts) when its module is
// imported, in the order /api/jobs/schedules/ lists it. src/jobs/host.ts starts what is declared.
import './lifecycle/schedule.ts';
import './compliance/schedule.ts';
import './monitoring/process.ts';
import './search/schedule.ts';
import './upgrade/schedule.ts';
import './extras/webhook-queue.ts';
import './automation/deploy-queue.ts';
import './system/row-count-schedule.ts';
import './system/write-mark-schedule.ts';
