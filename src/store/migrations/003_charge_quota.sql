-- Settles a batch of quota charges in one statement (limits/quota.ts). Each call is one or more rows of the arrays
-- (same p_call value, consecutive), granted all or nothing, calls in array order. The rows are locked first, so
-- processes sharing the database serialise on them; one round trip instead of five per batch matters on the embedded
-- database, where every statement crosses a socket into single-threaded PGlite.
create function charge_quota(p_period date, p_call int[], p_account uuid[], p_endpoint text[], p_amount int[], p_limit int[])
returns table (out_call int, out_endpoint text, out_ok boolean, out_remaining int)
language plpgsql as $$
#variable_conflict use_column
declare
  n int := coalesce(array_length(p_call, 1), 0);
  i int := 1;
  first_row int;
  last_row int;
  fits boolean;
  used_now int;
begin
  insert into quota_usage (account_id, endpoint, period, used)
    select distinct a, e, p_period, 0 from unnest(p_account, p_endpoint) as t(a, e)
    on conflict (account_id, endpoint, period) do nothing;
  -- A fixed lock order keeps two batches touching the same rows from deadlocking.
  perform 1 from quota_usage q
    where q.period = p_period and (q.account_id, q.endpoint) in (select a, e from unnest(p_account, p_endpoint) as t(a, e))
    order by q.account_id, q.endpoint
    for update;
  while i <= n loop
    first_row := i;
    while i < n and p_call[i + 1] = p_call[first_row] loop
      i := i + 1;
    end loop;
    last_row := i;
    fits := true;
    for j in first_row..last_row loop
      select q.used into used_now from quota_usage q
        where q.account_id = p_account[j] and q.endpoint = p_endpoint[j] and q.period = p_period;
      if used_now + p_amount[j] > p_limit[j] then
        fits := false;
      end if;
    end loop;
    for j in first_row..last_row loop
      if fits then
        update quota_usage q set used = q.used + p_amount[j]
          where q.account_id = p_account[j] and q.endpoint = p_endpoint[j] and q.period = p_period
          returning q.used into used_now;
      else
        select q.used into used_now from quota_usage q
          where q.account_id = p_account[j] and q.endpoint = p_endpoint[j] and q.period = p_period;
      end if;
      out_call := p_call[j];
      out_endpoint := p_endpoint[j];
      out_ok := fits;
      out_remaining := greatest(0, p_limit[j] - used_now);
      return next;
    end loop;
    i := last_row + 1;
  end loop;
end
$$;
