// GET /v1/account/callback-secret: the secret the account's completion callbacks are signed with (made on the first
// read), so that the receiver can check the Vrai-Signature header. POST rotates it: the answer is the new secret, and
// the one it replaces still signs beside it for 24 hours (previous_expires_at), time to move the receiver over. Any
// key of the account may read or rotate it, as any key of the account reads its jobs; the answer is never cached.
import type { Services } from "../../services.ts";
import { createCallbackSecretStore, type CallbackSecret } from "../../callbacks/secret_store.ts";
import { admit } from "../guard.ts";
import { json } from "../problem.ts";

function secretAnswer(secret: CallbackSecret, headers: Record<string, string>): Response {
  return json(
    {
      secret: secret.secret,
      created_at: secret.createdAt.toISOString(),
      previous_expires_at: secret.previousExpiresAt?.toISOString() ?? null,
    },
    { headers: { ...headers, "cache-control": "no-store" } },
  );
}

export function readCallbackSecretRoute(services: Services) {
  const secrets = createCallbackSecretStore(services.db.sql);
  return async (request: Request): Promise<Response> => {
    const caller = await admit(request, services, { bucket: "jobs" });
    return secretAnswer(await secrets.current(caller.key.accountId), caller.headers);
  };
}

export function rotateCallbackSecretRoute(services: Services) {
  const secrets = createCallbackSecretStore(services.db.sql);
  return async (request: Request): Promise<Response> => {
    const caller = await admit(request, services, { bucket: "jobs" });
    return secretAnswer(await secrets.rotate(caller.key.accountId), caller.headers);
  };
}
