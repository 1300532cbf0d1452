-- A bulk item whose probe timed out is retried once later, as greylisting is, before its probe_timeout is final
-- (src/jobs/retry_rules.ts). Counted apart from greylisting and from failed hand-outs.
alter table job_items add column timeout_tries integer not null default 0;
