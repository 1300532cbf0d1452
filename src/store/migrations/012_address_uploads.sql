-- Bulk address uploads written as they are read: the job row is created first, as 'uploading', and its chunks are
-- inserted as 'uploading' while the file arrives, a few at a time, each insert on its own (a transaction held open for
-- the length of an upload would hold the embedded database's only session). Job reads, claims and callbacks know only
-- the other statuses, so nothing of an upload is visible or worked until it is committed (queued, or completed for
-- test keys, and its chunks pending) in one short transaction. A failed upload deletes its job; one whose process
-- died is deleted by the sweeper (jobs/sweeper.ts).
alter table jobs drop constraint jobs_status_check;
alter table jobs add constraint jobs_status_check
  check (status in ('uploading', 'queued', 'running', 'completed', 'failed'));
alter table address_job_chunks drop constraint address_job_chunks_status_check;
alter table address_job_chunks add constraint address_job_chunks_status_check
  check (status in ('uploading', 'pending', 'claimed', 'done'));
-- The sweeper looks for uploads left behind by their age.
create index jobs_uploading on jobs (created_at) where status = 'uploading';
