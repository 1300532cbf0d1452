// Clean a list: a CSV chosen here, its columns shown with the one(s) the server will read, sent to the bulk endpoint
// of its kind as text/csv, followed on a progress bar (the job read, every half second), summed up as a bar chart by
// verdict, and its results CSV fetched with the key in a header and saved as a file (never a key in a URL).
import { MissingKey, callApi, problemText } from "./api.js";
import { columnsOf, readRows } from "./csv_columns.js";
import { el } from "./dom.js";

const BULK_ENDPOINTS = { email: "/v1/email/bulk", address: "/v1/address/bulk" };
const POLL_MS = 500;

function columnsTable(t, { columns, sample, read }) {
  return el(
    "table",
    { class: "columns" },
    el("caption", {}, t("columns")),
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", { scope: "col" }, "#"),
        el("th", { scope: "col" }, t("column_name")),
        el("th", { scope: "col" }, t("first_value")),
        el("th", { scope: "col" }, t("column_use")),
      ),
    ),
    el(
      "tbody",
      {},
      columns.map((name, at) =>
        el(
          "tr",
          { "data-read": String(read.includes(at)) },
          el("td", {}, String(at + 1)),
          el("th", { scope: "row" }, name),
          el("td", {}, sample[0]?.[at] ?? ""),
          el("td", { class: "use" }, read.includes(at) ? t("column_read") : t("column_kept")),
        ),
      ),
    ),
  );
}

function summaryChart(t, summary, total) {
  const counts = Object.entries(summary).filter(([name, n]) => typeof n === "number" && name !== "retrying" && n > 0);
  const verdicts = t("verdicts");
  return el(
    "figure",
    { class: "chart" },
    el("figcaption", {}, t("summary")),
    el(
      "ul",
      {},
      counts.map(([verdict, n]) => {
        const bar = el("span", { class: "bar", "data-verdict": verdict });
        // element.style is CSSOM, which the page's CSP allows (style attributes in markup it refuses)
        bar.style.width = `${total > 0 ? (100 * n) / total : 0}%`;
        return el(
          "li",
          { "data-verdict": verdict, "data-count": String(n) },
          el("span", { class: "name" }, verdicts[verdict] ?? verdict),
          el("span", { class: "track" }, bar),
          el("span", { class: "count" }, String(n)),
        );
      }),
    ),
  );
}

function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = el("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function cleanView(t, root, key) {
  const form = root.querySelector("#clean-form");
  const fileInput = root.querySelector("#clean-file");
  const columnsBox = root.querySelector("#clean-columns");
  const submit = root.querySelector("#clean-submit");
  const jobBox = root.querySelector("#clean-job");
  const status = root.querySelector("#clean-status");
  const progress = root.querySelector("#clean-progress");
  const summaryBox = root.querySelector("#clean-summary");
  const download = root.querySelector("#clean-download");
  let job;
  let timer;

  async function preview() {
    const file = fileInput.files?.[0];
    submit.disabled = true;
    columnsBox.replaceChildren();
    if (!file) return;
    const text = await file.text();
    const kind = form.elements.list.value;
    const found = columnsOf(text, kind);
    const rows = Math.max(0, readRows(text, Number.POSITIVE_INFINITY).rows.length - 1);
    columnsBox.replaceChildren(el("p", {}, `${file.name}: ${t("rows", { n: rows })}`), columnsTable(t, found));
    if (found.read.length === 0) {
      columnsBox.append(el("p", { class: "problem", role: "alert" }, t(`no_column_${kind}`)));
    } else submit.disabled = false;
  }

  function show(answer) {
    const { status: state, processed, total, summary } = answer;
    status.textContent = t("job_status", { processed, total, status: t(`status_${state}`) });
    progress.max = Math.max(total, 1);
    progress.value = processed;
    jobBox.dataset.status = state;
    if (summary) summaryBox.replaceChildren(summaryChart(t, summary, total));
    download.hidden = state !== "completed";
  }

  async function poll() {
    try {
      const answer = await callApi(key.get(), "GET", `/v1/jobs/${encodeURIComponent(job.id)}?limit=0`);
      if (!answer.ok) {
        status.textContent = `${t("failed")}: ${problemText(answer)}`;
        return;
      }
      show(answer.data);
      if (answer.data.status === "queued" || answer.data.status === "running") timer = setTimeout(poll, POLL_MS);
    } catch (error) {
      status.textContent = `${t("failed")}: ${String(error)}`;
    }
  }

  fileInput.addEventListener("change", preview);
  for (const radio of form.elements.list) radio.addEventListener("change", preview);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = fileInput.files?.[0];
    if (!file) return;
    clearTimeout(timer);
    const kind = form.elements.list.value;
    jobBox.hidden = false;
    download.hidden = true;
    summaryBox.replaceChildren();
    progress.value = 0;
    status.textContent = t("sending");
    submit.disabled = true;
    try {
      const answer = await callApi(key.get(), "POST", BULK_ENDPOINTS[kind], {
        body: file,
        headers: { "content-type": "text/csv" },
      });
      if (!answer.ok) {
        status.textContent = `${t("failed")}: ${problemText(answer)}`;
        jobBox.dataset.status = "refused";
        return;
      }
      job = { id: answer.data.job_id, name: `${file.name.replace(/\.csv$/i, "")}-results.csv` };
      await poll();
    } catch (error) {
      if (error instanceof MissingKey) key.focus();
      status.textContent = error instanceof MissingKey ? t("key_needed") : `${t("failed")}: ${String(error)}`;
      jobBox.dataset.status = "refused";
    } finally {
      submit.disabled = false;
    }
  });
  download.addEventListener("click", async () => {
    if (!job) return;
    const answer = await callApi(key.get(), "GET", `/v1/jobs/${encodeURIComponent(job.id)}/results.csv`, {
      accept: "text/csv",
    });
    if (!answer.ok) {
      status.textContent = `${t("failed")}: ${problemText(answer)}`;
      return;
    }
    saveBlob(answer.data, job.name);
    status.textContent = t("downloaded", { name: job.name });
  });
}
