// /healthz: the process answers. /readyz: it can serve: database reachable and address service started (its indexes
// loaded, or a first import over). It also shows the SMTP egress self-check run at start, the BAN départements being
// imported and those left without an index, none of which makes the service unready once it answers addresses: email
// then answers `unknown` without working probes, and an address in a missing département answers `unknown`
// (postcode_not_covered).
import type { EgressReport } from "../../email/egress/self_check.ts";
import type { Services } from "../../services.ts";
import { MISSING_INDEX_FIX } from "../../address/load.ts";
import { json } from "../problem.ts";
import { deadline, untilAborted } from "../../async/deadline.ts";

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

/** How long /readyz waits for the database's answer: a probe must not outlast an orchestrator's probe timeout. */
const DATABASE_CHECK_MS = 2000;

/**
 * `true`, or why the database cannot serve: "unreachable: …" (not reached yet at start, or not answering now), "disk
 * full under STATE_DIR: …".
 */
async function databaseCheck(db: Services["db"]): Promise<true | string> {
  if (db.unready !== undefined) return db.unready;
  // "disk full under STATE_DIR: …" from the first write refused for lack of space until the database has room again
  // (store/disk_full.ts): reads may still answer, so `select 1` cannot tell.
  if (db.diskFull !== undefined) return db.diskFull;
  const limit = deadline(DATABASE_CHECK_MS, { what: "check the database" });
  try {
    const answer = await untilAborted(
      db.sql`select 1`.then(() => true as const),
      limit.signal,
    );
    return answer === true ? true : `unreachable: no answer within ${DATABASE_CHECK_MS} ms`;
  } catch (error) {
    return `unreachable: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    limit.dispose();
  }
}

/**
 * `true` when every configured département is indexed; the départements left without an index and the fix when the
 * service started without them (still ready); `importing` (with progress) while configured départements are imported,
 * unready only during a first import, when nothing can answer; `loading` while the indexes are read at start (calls
 * wait for it); `false` when the service does not serve addresses.
 */
function addressIndexCheck(address: Services["address"]) {
  // A verifier without index status (a test's fake) is ready as it says.
  const index = typeof address.index === "object" ? address.index : undefined;
  if (index !== undefined && index.phase !== "serving") {
    const missing = index.missing.length > 0 ? { missing: index.missing, fix: MISSING_INDEX_FIX } : {};
    if (index.phase === "loading") return { ready: false, check: { status: "loading" } };
    return {
      ready: index.answering,
      check: { status: "importing", departements: index.importing, progress: index.progress, ...missing },
    };
  }
  if (address.ready) return { ready: true, check: true as const };
  const missing = address.missing ?? [];
  if (missing.length === 0) return { ready: false, check: false as const };
  return { ready: true, check: { status: "missing", departements: missing, fix: MISSING_INDEX_FIX } };
}

export function readyzRoute(services: Services) {
  return async (): Promise<Response> => {
    const database = await databaseCheck(services.db);
    const { ready: addressReady, check: addressIndex } = addressIndexCheck(services.address);
    const stopping = services.stopping?.() === true;
    const ready = database === true && addressReady && !stopping;
    const checks: Record<string, unknown> = { database, address_index: addressIndex };
    if (services.egress !== undefined) checks.smtp_egress = smtpEgress(services.egress.report);
    // A balancer takes the process out before its listener closes (STOP_UNREADY_MS); calls are still answered.
    if (stopping) checks.process = "stopping: calls are still answered until the listener closes";
    return json(
      { status: ready ? "ready" : "not ready", checks },
      { status: ready ? 200 : 503, headers: ready ? {} : { "retry-after": "5" } },
    );
  };
}
