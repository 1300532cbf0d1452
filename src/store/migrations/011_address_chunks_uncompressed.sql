-- A bulk address chunk's texts are stored as they are, not compressed. Postgres compresses any value over 2 kB
-- (pglz) on write and decompresses it on every read; a chunk's answers are about 800 kB of JSON, written once and read
-- by every page and download of the job, and on the embedded database that compression ran in the database's one
-- thread beside everything else (measured: about a third of its time during a bulk job). The cost is disk: about
-- three times the bytes for a job's 48 hours.
alter table address_job_chunks
  alter column inputs set storage external,
  alter column fields set storage external,
  alter column results set storage external;
