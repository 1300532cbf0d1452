// The job store conformance suite on the local PostgreSQL (TEST_DATABASE_URL), in a schema of its own.
import { jobStoreSuite } from "./job_store_suite.ts";
import { openTestDatabase } from "../helpers/database.ts";

jobStoreSuite("PostgreSQL", () => openTestDatabase("postgres"));
