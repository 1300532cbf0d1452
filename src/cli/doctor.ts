// npm run doctor [-- --json]: can SMTP probes work from this host, with this configuration? Connects to port 25 of
// SMTP_SELFTEST_HOST (default: the first MX of a large mailbox provider), directly or through SMTP_PROXY /
// SMTP_PROXY_RULES, checks the HELO name and the reverse DNS of the address the server saw. Prints one line per check
// with the fix when it fails; exits 1 when a check failed (probes cannot work, or will be refused), 2 on a bad
// configuration or command line, 0 otherwise.
import { loadConfig } from "../config.ts";
import { checkEgress, formatEgressReport } from "../email/egress/self_check.ts";
import { parseCommandLine, USAGE_EXIT, CommandLineError } from "./command_line.ts";

const USAGE = `Usage: npm run doctor [-- --json]

Checks whether SMTP probes can work from this host, with this configuration (the same environment as the server):

  outbound_port_25   connects to port 25 of SMTP_SELFTEST_HOST (default: the first MX of gmail.com), directly or
                     through SMTP_PROXY / SMTP_PROXY_RULES, and waits for its greeting
  helo_name          SMTP_HELO_NAME is a fully qualified name that resolves
  reverse_dns        the address the target saw has a PTR record that resolves back to it

One line per check (ok, FAIL or skip), with the fix under each failure.

  --json       print the report as one JSON object instead
  -h, --help   this text

Exit codes: 0 probes can work, 1 a check failed, 2 a bad configuration or command line.`;

async function main(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(
    {
      args: argv,
      options: {
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    },
    { command: "doctor", help: "npm run doctor -- --help" },
  );
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    console.error((error as Error).message);
    return USAGE_EXIT;
  }
  let report: Awaited<ReturnType<typeof checkEgress>>;
  try {
    report = await checkEgress(config);
  } catch (error) {
    // A bad SMTP_PROXY URL or SMTP_PROXY_RULES file: the server would refuse to start with it too.
    console.error((error as Error).message);
    return USAGE_EXIT;
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

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    if (!(error instanceof CommandLineError)) throw error;
    console.error(error.message);
    process.exitCode = USAGE_EXIT;
  },
);
