// The job store conformance suite on the embedded database (PGlite behind its Unix socket).
import { jobStoreSuite } from "./job_store_suite.ts";
import { openTestDatabase } from "../helpers/database.ts";

jobStoreSuite("the embedded database", () => openTestDatabase("embedded"));
