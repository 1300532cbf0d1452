// npm run doctor [-- --json]: can SMTP probes work from this host, with this configuration? Connects to port 25 of
// SMTP_SELFTEST_HOST (default: the first MX of a large mailbox provider), directly or through SMTP_PROXY /
// SMTP_PROXY_RULES, checks the HELO name and the reverse DNS of the address the server saw. Prints one line per check
// with the fix when it fails; exits 1 when a check failed (probes cannot work, or will be refused), 2 on a bad
// configuration, 0 otherwise.
import { parseArgs } from "node:util";
import { loadConfig } from "../config.ts";
import { checkEgress, formatEgressReport } from "../email/egress/self_check.ts";

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { json: { type: "boolean", default: false } } });
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  let report: Awaited<ReturnType<typeof checkEgress>>;
  try {
    report = await checkEgress(config);
  } catch (error) {
    // A bad SMTP_PROXY URL or SMTP_PROXY_RULES file: the server would refuse to start with it too.
    console.error((error as Error).message);
    return 2;
  }
  if (values.json) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    console.log(`SMTP egress to ${report.target} (${report.route}):`);
    for (const line of formatEgressReport(report)) console.log(line);
    console.log(
      report.ok ? "probes can work from here" : "probes cannot work from here until the failures above are fixed",
    );
  }
  return report.ok ? 0 : 1;
}

process.exitCode = await main();
