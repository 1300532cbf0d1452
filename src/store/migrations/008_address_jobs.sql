-- Bulk address jobs: the same jobs table (one id space, one read, one retention), marked by kind, with their rows in
-- chunks of a table of their own, so that neither claimer scans the other's queue. A chunk holds up to 1000 rows in
-- input order (first_row is the 1-based position of its first): their inputs as POST /v1/address takes them, a CSV
-- file's cells as submitted (fields), for each row the first equal row of the job (dup_of, null for a first), and
-- once answered their answers (results, one per row) and the answers counted by verdict (summary). JSON arrays as
-- text: the database only stores and returns them, and a chunk is claimed, written and read as one row.
alter table jobs add column kind text not null default 'email' check (kind in ('email', 'address'));

create table address_job_chunks (
  job_id uuid not null references jobs (id) on delete cascade,
  chunk integer not null,
  first_row integer not null,
  size integer not null,
  inputs text not null,
  fields text,
  dup_of text not null,
  status text not null default 'pending' check (status in ('pending', 'claimed', 'done')),
  -- Hand-outs not handed back (a crash counts; a graceful release does not): caps the work on a chunk that kills its
  -- worker.
  attempts integer not null default 0,
  lease_owner text,
  lease_until timestamptz,
  results text,
  summary jsonb,
  primary key (job_id, chunk)
);
-- Claiming reads pending chunks in job and input order; leases that ran out are found by their end.
create index address_job_chunks_pending on address_job_chunks (job_id, chunk) where status = 'pending';
create index address_job_chunks_claimed on address_job_chunks (lease_until) where status = 'claimed';
