// The page for people: picks the language, puts its texts in place, then wires the service state, the key, Try,
// Clean a list and Read the API. Marks <html data-ready> once everything answers input (the browser test and the
// time-to-usable measure wait for it).
import { cleanView } from "./clean.js";
import { keyHolder } from "./key.js";
import { referenceView } from "./reference.js";
import { stateView } from "./state.js";
import { pickLanguage, textOf } from "./texts.js";
import { tryView } from "./try.js";

const language = pickLanguage(navigator.languages?.length ? navigator.languages : [navigator.language ?? "en"]);
const t = (name, values) => textOf(language, name, values);

document.documentElement.lang = language;
for (const node of document.querySelectorAll("[data-text]")) node.textContent = t(node.dataset.text);
for (const node of document.querySelectorAll("[data-text-label]"))
  node.setAttribute("aria-label", t(node.dataset.textLabel));

const key = keyHolder(document.querySelector("#key"), document.querySelector("#key-remember"));
tryView(t, document, key);
cleanView(t, document, key);
referenceView(t, document, key);
// Milliseconds from the start of navigation to a page that answers input: the "time to usable" the test reports.
document.documentElement.dataset.usableMs = String(Math.round(performance.now()));
document.documentElement.dataset.ready = "true";
stateView(t, document).then(() => {
  document.documentElement.dataset.state = "shown";
});
