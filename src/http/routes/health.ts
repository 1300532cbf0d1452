// /healthz: the process answers. /readyz: it can serve: database reachable and address index loaded.
import type { Services } from "../../services.ts";
import { json } from "../problem.ts";

export function healthz(): Response {
  return json({ status: "ok" });
}

export function readyzRoute(services: Services) {
  return async (): Promise<Response> => {
    const database = await services.db.sql`select 1`.then(() => true, () => false);
    const addressIndex = services.address.ready;
    const ready = database && addressIndex;
    return json(
      { status: ready ? "ready" : "not ready", checks: { database, address_index: addressIndex } },
      { status: ready ? 200 : 503, headers: ready ? {} : { "retry-after": "5" } },
    );
  };
}
