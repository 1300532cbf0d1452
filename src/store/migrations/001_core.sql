-- Accounts own keys; plans, quotas and rate limits are per account.
create table accounts (
  id uuid primary key,
  name text not null unique,
  plan text not null,
  created_at timestamptz not null default now()
);

-- A key is stored as the SHA-256 of the whole key and its first 12 characters, nothing else.
create table api_keys (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  prefix char(12) not null,
  hash bytea not null unique,
  mode text not null check (mode in ('live', 'test')),
  endpoints text[] not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index api_keys_prefix on api_keys (prefix);

-- Calls charged per account, endpoint and calendar month (UTC).
create table quota_usage (
  account_id uuid not null references accounts (id),
  endpoint text not null,
  period date not null,
  used integer not null,
  primary key (account_id, endpoint, period)
);

-- Token buckets shared by the processes of one PostgreSQL (the embedded database keeps them in memory).
create table rate_buckets (
  account_id uuid not null,
  bucket text not null,
  tokens double precision not null,
  updated_at timestamptz not null,
  primary key (account_id, bucket)
);
