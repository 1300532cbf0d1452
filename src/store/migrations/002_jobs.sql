-- Bulk email jobs (DECISIONS §6). A job belongs to an account and lives 48 hours; its items are the deduplicated
-- addresses in submission order, handed to workers under leases.
create table jobs (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  status text not null check (status in ('queued', 'running', 'completed', 'failed')),
  total integer not null,
  processed integer not null default 0,
  -- Items whose verification kept failing and that got the fallback answer: a job where every item did is failed.
  exhausted integer not null default 0,
  failure_reason text,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
-- The sweeper deletes by expiry.
create index jobs_expires_at on jobs (expires_at);

create table job_items (
  job_id uuid not null references jobs (id) on delete cascade,
  -- 1-based submission order; results are read back in this order.
  position integer not null,
  email text not null,
  status text not null default 'pending' check (status in ('pending', 'claimed', 'done')),
  -- Times the item was handed to a worker and not handed back (a crash or a verifier error counts; a graceful
  -- release does not): caps the work on an address that keeps failing.
  attempts integer not null default 0,
  -- Greylisted answers received so far, and when the first came: at most N tries within a window.
  greylist_tries integer not null default 0,
  greylisted_at timestamptz,
  not_before timestamptz not null,
  lease_owner text,
  lease_until timestamptz,
  result jsonb,
  primary key (job_id, position)
);
-- Claiming scans ready items oldest first, and items whose lease ran out.
create index job_items_pending on job_items (not_before, job_id, position) where status = 'pending';
create index job_items_claimed on job_items (lease_until) where status = 'claimed';
