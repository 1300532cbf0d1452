-- Idempotency-Key on POST /v1/email/bulk: a client that sends a submission again (a retry after an answer it never
-- got, a resumed CLI run killed before it wrote the job down) gets the job it already has, not a second one charged
-- again. The key belongs to its account and lives as long as its job; the request's fingerprint tells a replay from
-- another list sent under the same key.
alter table jobs add column idempotency_key text;
alter table jobs add column request_hash text;
create unique index jobs_idempotency_key on jobs (account_id, idempotency_key) where idempotency_key is not null;
