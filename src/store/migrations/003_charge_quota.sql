-- Settles a batch of quota charges in one statement (limits/quota.ts). The batch names its distinct quota rows
-- (p_account, p_endpoint, p_limit: one entry per row) and its charges (p_call, p_row, p_amount: one entry per charge,
-- the charges of one call consecutive, calls in arrival order). Each call is granted all or nothing, in order; a
-- negative amount is a refund and always fits.
-- Why one function: on the embedded database every statement crosses a socket into single-threaded PGlite, so the
-- work per batch is four statements whatever its size, and the per-call decisions are array arithmetic, not SQL.
-- The rows are locked first (in a fixed order, so that two batches cannot deadlock), so processes sharing a
-- PostgreSQL serialise on them.
create function charge_quota(
  p_period date,
  p_account uuid[], p_endpoint text[], p_limit int[],
  p_call int[], p_row int[], p_amount int[]
)
returns table (out_call int, out_row int, out_ok boolean, out_remaining int)
language plpgsql as $$
declare
  rows_n int := coalesce(array_length(p_account, 1), 0);
  n int := coalesce(array_length(p_call, 1), 0);
  used int[];
  delta int[] := array_fill(0, array[greatest(rows_n, 1)]);
  i int := 1;
  first_charge int;
  last_charge int;
  fits boolean;
begin
  insert into quota_usage (account_id, endpoint, period, used)
    select a, e, p_period, 0 from unnest(p_account, p_endpoint) as t(a, e)
    on conflict (account_id, endpoint, period) do nothing;
  perform 1 from quota_usage q
    where q.period = p_period and (q.account_id, q.endpoint) in (select a, e from unnest(p_account, p_endpoint) as t(a, e))
    order by q.account_id, q.endpoint
    for update;
  select array_agg(q.used order by t.k) into used
    from unnest(p_account, p_endpoint) with ordinality as t(a, e, k)
    join quota_usage q on q.account_id = t.a and q.endpoint = t.e and q.period = p_period;
  while i <= n loop
    first_charge := i;
    while i < n and p_call[i + 1] = p_call[first_charge] loop
      i := i + 1;
    end loop;
    last_charge := i;
    fits := true;
    for j in first_charge..last_charge loop
      if used[p_row[j]] + delta[p_row[j]] + p_amount[j] > p_limit[p_row[j]] then
        fits := false;
      end if;
    end loop;
    if fits then
      for j in first_charge..last_charge loop
        delta[p_row[j]] := delta[p_row[j]] + p_amount[j];
      end loop;
    end if;
    for j in first_charge..last_charge loop
      out_call := p_call[j];
      out_row := p_row[j];
      out_ok := fits;
      out_remaining := greatest(0, p_limit[p_row[j]] - used[p_row[j]] - delta[p_row[j]]);
      return next;
    end loop;
    i := last_charge + 1;
  end loop;
  update quota_usage q set used = greatest(0, q.used + d.delta)
    from unnest(p_account, p_endpoint, delta[1:rows_n]) as d(a, e, delta)
    where d.delta <> 0 and q.account_id = d.a and q.endpoint = d.e and q.period = p_period;
end
$$;
