// One answer of the API shown as a person reads it: the verdict, each reason in plain words (with its code), the
// checks in the order they run (skipped ones shown as skipped), the suggestion, the normalized address and a link to
// its position (a geo: URI: coordinates only, no map loaded from anywhere).
import { el } from "./dom.js";
import { TEXTS } from "./texts.js";

/** The email checks in the order the API runs them (the order of TEXTS.en.check_names, kept by a test). */
export const CHECK_ORDER = Object.keys(TEXTS.en.check_names);

function verdictBadge(t, verdict) {
  return el(
    "p",
    { class: "verdict", "data-verdict": verdict },
    el("span", { class: "label" }, `${t("verdict")}: `),
    el("strong", {}, t("verdicts")[verdict] ?? verdict),
    " ",
    el("code", {}, verdict),
  );
}

function reasonList(t, reasons) {
  if (reasons.length === 0) return el("p", { class: "reasons-none" }, t("no_reason"));
  const texts = t("reason_texts");
  return el(
    "ul",
    { class: "reasons" },
    reasons.map((reason) => {
      // signup reasons are "<signal>.<reason>"
      const [signal, code] = reason.includes(".") ? reason.split(".", 2) : [undefined, reason];
      const prefix = signal === undefined ? "" : `${t(`${signal}_signal`)}: `;
      return el("li", { "data-reason": reason }, prefix + (texts[code] ?? code), " ", el("code", {}, reason));
    }),
  );
}

function checkList(t, checks) {
  const names = t("check_names");
  const statuses = t("check_statuses");
  return el(
    "ol",
    { class: "checks" },
    CHECK_ORDER.filter((name) => name in checks).map((name) =>
      el(
        "li",
        { "data-check": name, "data-status": checks[name] },
        el("span", {}, names[name]),
        el("span", { class: "status" }, statuses[checks[name]] ?? checks[name]),
      ),
    ),
  );
}

function suggestionLine(t, suggestion) {
  if (!suggestion) return null;
  return el("p", { class: "suggestion" }, `${t("suggestion")} `, el("strong", {}, suggestion), " ?");
}

/** `normalized` is the address endpoint's object, or the signup's single line. */
function normalizedBlock(t, normalized) {
  if (!normalized) return null;
  const line = typeof normalized === "string" ? normalized : normalized.line;
  const parts = [el("dt", {}, t("normalized")), el("dd", { class: "normalized" }, line)];
  if (typeof normalized === "object") {
    const { latitude, longitude } = normalized;
    const known = typeof latitude === "number" && typeof longitude === "number";
    parts.push(
      el("dt", {}, t("position")),
      el(
        "dd",
        {},
        known
          ? el("a", { href: `geo:${latitude},${longitude}`, class: "position" }, `${latitude}, ${longitude}`)
          : t("position_none"),
      ),
    );
  }
  return el("dl", { class: "facts" }, parts);
}

function took(t, ms) {
  return typeof ms === "number" ? el("p", { class: "muted" }, t("took", { ms })) : null;
}

export function emailAnswer(t, answer) {
  return [
    verdictBadge(t, answer.verdict),
    el("h3", {}, t("reasons")),
    reasonList(t, answer.reasons),
    suggestionLine(t, answer.suggestion),
    el("h3", {}, t("checks")),
    checkList(t, answer.checks ?? {}),
    took(t, answer.duration_ms),
  ];
}

export function addressAnswer(t, answer) {
  return [
    verdictBadge(t, answer.verdict),
    el("h3", {}, t("reasons")),
    reasonList(t, answer.reasons),
    normalizedBlock(t, answer.normalized),
    took(t, answer.duration_ms),
  ];
}

export function signupAnswer(t, answer) {
  const parts = [verdictBadge(t, answer.verdict), el("h3", {}, t("reasons")), reasonList(t, answer.reasons)];
  const { email, address } = answer.signals ?? {};
  if (email) {
    parts.push(
      el(
        "section",
        { class: "signal" },
        el("h3", {}, t("email_signal")),
        verdictBadge(t, email.verdict),
        reasonList(t, email.reasons),
        suggestionLine(t, email.suggestion),
      ),
    );
  }
  if (address) {
    parts.push(
      el(
        "section",
        { class: "signal" },
        el("h3", {}, t("address_signal")),
        verdictBadge(t, address.verdict),
        reasonList(t, address.reasons),
        normalizedBlock(t, address.normalized),
      ),
    );
  }
  parts.push(took(t, answer.duration_ms));
  return parts;
}

/** A refused call: the problem document's title and detail. */
export function failure(t, text) {
  return [el("p", { class: "problem", role: "alert" }, `${t("failed")}: ${text}`)];
}
