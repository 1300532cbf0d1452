// /healthz: the process answers. /readyz: it can serve: database reachable and address index loaded. It also shows
// the SMTP egress self-check run at start, which never makes the service unready: without working probes email still
// answers, `unknown`.
import type { EgressReport } from "../../email/egress/self_check.ts";
import type { Services } from "../../services.ts";
import { json } from "../problem.ts";

export function healthz(): Response {
  return json({ status: "ok" });
}

function smtpEgress(report: EgressReport | null) {
  if (report === null) return { status: "pending" };
  return {
    status: report.ok ? "pass" : "fail",
    route: report.route,
    target: report.target,
    checks: Object.fromEntries(report.checks.map((c) => [c.name, c.status])),
    ...(report.ok
      ? {}
      : {
          failures: report.checks
            .filter((c) => c.status === "fail")
            .map(({ name, detail, fix }) => ({ name, detail, fix })),
        }),
  };
}

export function readyzRoute(services: Services) {
  return async (): Promise<Response> => {
    const database = await services.db.sql`select 1`.then(
      () => true,
      () => false,
    );
    const addressIndex = services.address.ready;
    const ready = database && addressIndex;
    const checks: Record<string, unknown> = { database, address_index: addressIndex };
    if (services.egress !== undefined) checks.smtp_egress = smtpEgress(services.egress.report);
    return json(
      { status: ready ? "ready" : "not ready", checks },
      { status: ready ? 200 : 503, headers: ready ? {} : { "retry-after": "5" } },
    );
  };
}
