// Try: one email, one address (a line or fields) or one signup, sent with the page's key, answered on the page.
import { MissingKey, callApi, problemText } from "./api.js";
import { addressAnswer, emailAnswer, failure, signupAnswer } from "./answer_view.js";

const ENDPOINTS = { email: "/v1/email", address: "/v1/address", signup: "/v1/signup" };
const VIEWS = { email: emailAnswer, address: addressAnswer, signup: signupAnswer };

/** Shows the fields of the chosen kind and address shape, hides (and disables) the others. */
function showChosen(form) {
  const kind = form.elements.kind.value;
  const shape = form.elements.shape.value;
  for (const node of form.querySelectorAll("[data-for-kind]")) {
    const shown = node.dataset.forKind.split(" ").includes(kind);
    node.hidden = !shown;
    node.disabled = !shown;
  }
  for (const node of form.querySelectorAll("[data-for-shape]")) node.hidden = node.dataset.forShape !== shape;
}

function addressOf(form) {
  const value = (name) => form.elements[name].value.trim();
  if (form.elements.shape.value === "line") return { line: value("line") };
  const address = {};
  for (const name of ["house_number", "street", "postcode", "city"]) if (value(name)) address[name] = value(name);
  return address;
}

function bodyOf(form) {
  const kind = form.elements.kind.value;
  const email = form.elements.email.value.trim();
  if (kind === "email") return { email };
  if (kind === "address") return addressOf(form);
  const body = {};
  if (email) body.email = email;
  const address = addressOf(form);
  if (Object.values(address).some((v) => v)) body.address = address;
  return body;
}

export function tryView(t, root, key) {
  const form = root.querySelector("#try-form");
  const result = root.querySelector("#try-result");
  const submit = root.querySelector("#try-submit");
  form.addEventListener("change", () => showChosen(form));
  showChosen(form);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const kind = form.elements.kind.value;
    result.dataset.state = "busy";
    result.replaceChildren(t("checking"));
    submit.disabled = true;
    try {
      const answer = await callApi(key.get(), "POST", ENDPOINTS[kind], { body: bodyOf(form) });
      result.replaceChildren(
        ...(answer.ok ? VIEWS[kind](t, answer.data) : failure(t, problemText(answer))).filter(Boolean),
      );
      result.dataset.state = answer.ok ? "answered" : "refused";
    } catch (error) {
      if (error instanceof MissingKey) key.focus();
      result.replaceChildren(...failure(t, error instanceof MissingKey ? t("key_needed") : String(error)));
      result.dataset.state = "refused";
    } finally {
      submit.disabled = false;
    }
  });
}
