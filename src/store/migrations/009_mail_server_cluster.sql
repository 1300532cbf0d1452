-- Processes sharing one PostgreSQL behave as one client toward each mail server (docs/decisions.md, "A cluster of
-- processes"): the per-MX connection slots are leases held here, and what one process learnt about a mail server
-- (a catch-all domain, a host cooling off) is kept here for the others. The embedded database has one process and
-- leaves these tables empty.
create table mx_slot_leases (
  host text not null,
  slot integer not null,
  -- The process holding the slot (a random id per process); its lease is renewed while it lives.
  holder text not null,
  expires_at timestamptz not null,
  primary key (host, slot)
);
create index mx_slot_leases_holder on mx_slot_leases (holder);

-- A domain's catch-all answer (catch_all set, until expires_at), or the probe one process is running for it
-- (catch_all null: the others wait for its answer until expires_at, then ask themselves).
create table catch_all_answers (
  domain text primary key,
  catch_all boolean,
  holder text not null,
  expires_at timestamptz not null
);

-- MX hosts skipped after repeated time-outs, until cooled_until.
create table mx_cool_offs (
  host text primary key,
  cooled_until timestamptz not null
);
