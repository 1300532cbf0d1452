// Makes the migrated embedded database of a new STATE_DIR given as the argument, as a first start does, and closes it
// cleanly: the template that test databases are copies of (embedded_template.ts).
import { openDatabase } from "../../src/store/db.ts";

const stateDir = process.argv[2];
if (stateDir === undefined) throw new Error("Cannot make the template: give the STATE_DIR to make it in");
const db = await openDatabase({ databaseUrl: undefined, stateDir });
await db.close();
