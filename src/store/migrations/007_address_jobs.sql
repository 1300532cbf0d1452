-- Bulk address jobs: the same jobs table (one id space, one read, one retention), marked by kind, with their rows in
-- a table of their own, so that neither claimer scans the other's queue. Every submitted row is stored, in input
-- order; a row equal to an earlier one (dup_of) is not verified again but answered with that row's result when it is
-- written. input is the row as POST /v1/address takes it; fields are a CSV row's cells as submitted.
alter table jobs add column kind text not null default 'email' check (kind in ('email', 'address'));

create table address_job_items (
  job_id uuid not null references jobs (id) on delete cascade,
  -- 1-based input order; results are read back in this order.
  position integer not null,
  input jsonb not null,
  fields jsonb,
  -- The position of the first equal row of the job, null for a first occurrence (the rows that are verified).
  dup_of integer,
  status text not null default 'pending' check (status in ('pending', 'claimed', 'done')),
  -- Hand-outs not handed back (a crash counts; a graceful release does not): caps the work on a row that kills its
  -- worker.
  attempts integer not null default 0,
  lease_owner text,
  lease_until timestamptz,
  result jsonb,
  primary key (job_id, position)
);
-- Claiming reads first occurrences in job and input order; leases that ran out are found by their end.
create index address_job_items_pending on address_job_items (job_id, position) where status = 'pending' and dup_of is null;
create index address_job_items_claimed on address_job_items (lease_until) where status = 'claimed';
-- A written result goes to the row's duplicates too.
create index address_job_items_dups on address_job_items (job_id, dup_of) where dup_of is not null;
