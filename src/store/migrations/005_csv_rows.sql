-- CSV submissions: the header row of the file, and each kept row's cells as submitted, so that a job's
-- results go back out as the user's own rows with the verdict columns added. Null for JSON submissions.
alter table jobs add column columns jsonb;
alter table job_items add column fields jsonb;
