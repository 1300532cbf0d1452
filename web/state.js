// The service's state, read without a key: /readyz (ready or why not, the SMTP egress self-check) and the JSON of
// GET / (version, départements indexed).
import { el } from "./dom.js";

function readinessText(t, ready) {
  if (ready.status === "ready") return t("ready");
  const why = [];
  const { database, address_index: index } = ready.checks ?? {};
  if (database !== true && database !== undefined) why.push(`${t("database")}: ${database}`);
  if (index !== true && index !== undefined) {
    const phase = index === false ? t("none") : t(`index_${index.status}`);
    why.push(`${t("address_index")}: ${phase}`);
  }
  return why.length > 0 ? `${t("not_ready")} (${why.join("; ")})` : t("not_ready");
}

function egressNodes(t, egress) {
  if (egress === undefined) return [t("egress_absent")];
  if (egress.status === "pending") return [t("egress_pending")];
  const nodes = [egress.status === "pass" ? t("egress_pass") : t("egress_fail")];
  if (egress.route)
    nodes.push(el("span", { class: "muted" }, ` (${egress.route}${egress.target ? ` → ${egress.target}` : ""})`));
  for (const failure of egress.failures ?? []) {
    nodes.push(
      el("span", { class: "detail" }, `${failure.name}: ${failure.detail}${failure.fix ? ` ${failure.fix}` : ""}`),
    );
  }
  return nodes;
}

async function readJson(path) {
  const response = await fetch(path, { headers: { accept: "application/json" }, credentials: "omit" });
  return response.json();
}

export function stateView(t, root) {
  const status = root.querySelector("#state-status");
  const version = root.querySelector("#state-version");
  const departements = root.querySelector("#state-departements");
  const egress = root.querySelector("#state-egress");
  async function refresh() {
    try {
      const [ready, home] = await Promise.all([readJson("/readyz"), readJson("/")]);
      status.textContent = readinessText(t, ready);
      status.dataset.ready = String(ready.status === "ready");
      version.textContent = home.version ?? "?";
      departements.textContent = home.departements?.length ? home.departements.join(", ") : t("none");
      egress.replaceChildren(...egressNodes(t, ready.checks?.smtp_egress));
    } catch {
      status.textContent = t("unreachable");
      status.dataset.ready = "false";
    }
  }
  root.querySelector("#state-refresh").addEventListener("click", refresh);
  return refresh();
}
