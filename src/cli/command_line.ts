// The command line of every `npm run` command, read the same way: node:util's parseArgs, whose refusals (an unknown
// option, an option without its value, an argument the command does not take) are the user's mistake, not a crash.
// Each becomes one line that names what was wrong and the --help to read, with exit code 2: no stack trace, and no
// page of usage burying the one word that was mistyped.
import { type ParseArgsConfig, parseArgs } from "node:util";

/**
 * A command line the command cannot run: the command prints its message (one line for a refused option: what is
 * wrong, and where the usage is) and exits with USAGE_EXIT.
 */
export class CommandLineError extends Error {
  override name = "CommandLineError";
}

/** Exit code of a command line that cannot be run (as BSD's EX_USAGE is for sysexits, 2 for shells' builtins). */
export const USAGE_EXIT = 2;

/**
 * parseArgs(config), with its refusals thrown as CommandLineError lines such as
 * "Cannot run ban: unknown option --fore (npm run ban -- --help lists the options)". `command` names the command as
 * typed after `npm run` ("ban", "ban import"); `help` is the command line that prints its usage.
 */
export function parseCommandLine<T extends ParseArgsConfig>(
  config: T,
  options: { command: string; help: string },
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== "string" || !code.startsWith("ERR_PARSE_ARGS_")) throw error;
    throw new CommandLineError(
      `Cannot run ${options.command}: ${mistake(code, (error as Error).message)} (${helpHint(options.help)})`,
    );
  }
}

/** "npm run ban -- --help lists the options": the pointer every usage error ends with. */
export function helpHint(help: string): string {
  return `${help} lists the options`;
}

/** What parseArgs refused, in a few words that name the option or argument. */
function mistake(code: string, message: string): string {
  // parseArgs quotes the offending token: '--x', '--out <value>', '-o, --out <value>', 'extra'. The long name is
  // the one the usage lists.
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? "";
  const option =
    quoted
      .split(/[\s,]+/)
      .filter((word) => word.startsWith("-"))
      .at(-1) ?? quoted;
  switch (code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${option}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return /does not take an argument/.test(message)
        ? `option ${option} takes no value`
        : `option ${option} needs a value`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument ${quoted}`;
    default:
      // The first sentence only: parseArgs goes on to explain its own syntax.
      return message.split(". ")[0]!.replace(/^./, (c) => c.toLowerCase());
  }
}
