-- Completion callbacks: a bulk job submitted with a callback_url gets one signed POST when it ends. Its delivery
-- state is one row per job, leased by the process delivering it (as job items are), so that a delivery survives
-- restarts and is made by one process at a time; it goes with its job. Nothing here depends on the kind of job.
create table job_callbacks (
  job_id uuid primary key references jobs (id) on delete cascade,
  url text not null,
  -- pending: the job runs, or an attempt is due at next_attempt_at; delivered: a 2xx came back; failed: given up.
  state text not null default 'pending' check (state in ('pending', 'delivered', 'failed')),
  -- POSTs started, the one in flight included (a process that dies mid-POST has used its attempt).
  attempts integer not null default 0,
  last_status integer,
  last_error text,
  next_attempt_at timestamptz not null,
  -- The first attempt starts the day of retries.
  first_attempt_at timestamptz,
  delivered_at timestamptz,
  lease_owner text,
  lease_until timestamptz
);
-- The deliverer reads the callbacks due, oldest first; delivered and failed ones are never read again.
create index job_callbacks_due on job_callbacks (next_attempt_at) where state = 'pending';

-- The secret each account's callbacks are signed with (HMAC-SHA256). Kept readable, not hashed: the server signs with
-- it. After a rotation the previous secret signs too, beside the new one, until previous_until, so that a receiver
-- can switch without dropping a delivery.
create table callback_secrets (
  account_id uuid primary key references accounts (id),
  secret text not null,
  previous_secret text,
  previous_until timestamptz,
  created_at timestamptz not null
);
