-- An MX host's cool-off may start after refusals at its greeting, not only after time-outs (smtp/mx_health.ts): what
-- the host said is kept with it (a probe's answer as JSON; null for time-outs), so that a process skipping the host
-- answers the reason the host gave.
alter table mx_cool_offs add column refusal text;
