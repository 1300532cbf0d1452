import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import SwaggerParser from "@apidevtools/swagger-parser";
import openapiTS, { astToString } from "openapi-typescript";
import { RESERVED_ADDRESS_LINES } from "../../src/testmode/address.ts";
import { RESERVED_EMAILS } from "../../src/testmode/email.ts";
import { MISSPELT_MEMBER_BODY } from "../../src/http/openapi_examples.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { tempDir } from "../helpers/temp_dir.ts";

const TSC = fileURLToPath(new URL("../../node_modules/.bin/tsc", import.meta.url));

interface Operation {
  operationId?: string;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, MediaType> }>;
}
interface MediaType {
  example?: unknown;
  examples?: Record<string, { summary: string; value: any }>;
}

async function openApi(server: TestServer) {
  const response = await server.get("/v1/openapi.json");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "application/json");
  return response.json();
}

function operations(doc: any): Array<[string, string, Operation]> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Operation>).map(
      ([method, op]) => [path, method, op] as [string, string, Operation],
    ),
  );
}

const withoutDuration = ({ duration_ms: _, ...rest }: Record<string, unknown>) => rest;

const CLIENT = `import type { components, operations } from "./api.ts";

type VerifyEmail = operations["verifyEmail"];
export type EmailRequest = VerifyEmail["requestBody"]["content"]["application/json"];
export type EmailVerification = VerifyEmail["responses"][200]["content"]["application/json"];
export type Problem = components["schemas"]["Problem"];
export type Verdict = EmailVerification["verdict"];

/** The spec's verdicts: the generated type must allow exactly these. */
export const VERDICTS = ["undeliverable", "risky", "unknown", "deliverable"] as const satisfies readonly Verdict[];
type Missing = Exclude<Verdict, (typeof VERDICTS)[number]>;
export const exhaustive: [Missing] extends [never] ? true : Missing = true;

// @ts-expect-error: "valid" is no verdict
export const notAVerdict: Verdict = "valid";
// @ts-expect-error: email is required
export const noEmail: EmailRequest = {};
// @ts-expect-error: the member is email, not mail
export const misspelt: EmailRequest = { mail: "deliverable@vrai.test" };

// Headers and problem extensions are typed.
export const quotaRemaining: VerifyEmail["responses"][200]["headers"]["X-Quota-Remaining"] = 99;
export const tooLarge: operations["submitBulkEmail"]["responses"][413]["content"]["application/problem+json"] = {
  type: "http://x/errors/batch-too-large",
  title: "Batch too large",
  status: 413,
  detail: "Cannot accept batch",
  limit: 5000,
  received: 6000,
};
export const members: string[] = ({} as Problem).errors?.map((e) => e.member + e.message) ?? [];

export type Answer = { ok: true; body: EmailVerification } | { ok: false; status: number; body: Problem };

export async function verifyEmail(baseUrl: string, key: string, body: EmailRequest): Promise<Answer> {
  const response = await fetch(baseUrl + "/v1/email", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer " + key },
    body: JSON.stringify(body),
  });
  if (response.status === 200) return { ok: true, body: (await response.json()) as EmailVerification };
  return { ok: false, status: response.status, body: (await response.json()) as Problem };
}
`;

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "ESNext",
    moduleResolution: "Bundler",
    lib: ["ES2023", "DOM"],
    types: [],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    skipLibCheck: false,
  },
  files: ["api.ts", "client.ts"],
};

test("GET /v1/openapi.json, without a key", async (t) => {
  const server = await startTestServer(t);
  const doc = await openApi(server);
  const key = await server.key({ mode: "test" });

  await t.test("GET /v1/openapi.json is a valid OpenAPI 3.1 document", async () => {
    assert.equal(doc.openapi, "3.1.0");
    // Throws on any reference that does not resolve (the old #/$defs/… ones) and on any schema violation.
    await SwaggerParser.validate(structuredClone(doc));
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]*"/g) ?? [];
    assert.ok(refs.length > 0);
    for (const ref of refs) assert.match(ref, /^"\$ref":"#\/components\/(schemas|parameters|headers)\/[A-Za-z]+"$/);
  });

  await t.test(
    "completion callbacks: callback_url in the body and the query, the POST it gets, the job's state",
    async () => {
      const bulk = doc.paths["/v1/email/bulk"].post;
      const { schemas } = doc.components;
      assert.equal(schemas.BulkRequest.properties.callback_url.type, "string");
      assert.ok(
        bulk.parameters.some((p: { name: string; in: string }) => p.name === "callback_url" && p.in === "query"),
      );
      const callback = bulk.callbacks.jobEnded;
      assert.deepEqual(Object.keys(callback).sort(), [
        "{$request.body#/callback_url}",
        "{$request.query.callback_url}",
      ]);
      const post = callback["{$request.body#/callback_url}"].post;
      assert.deepEqual(
        post.parameters.map((p: { name: string; in: string }) => `${p.in} ${p.name}`),
        ["header Vrai-Signature"],
      );
      assert.deepEqual(post.requestBody.content["application/json"].schema, {
        $ref: "#/components/schemas/CallbackNotice",
      });
      const notice = schemas.CallbackNotice;
      assert.ok(notice.required.includes("poll") && notice.required.includes("summary"));
      assert.equal(notice.properties.results, undefined, "a notice, not the results");
      assert.deepEqual(schemas.Job.properties.callback, { $ref: "#/components/schemas/JobCallback" });
      assert.deepEqual(schemas.JobCallback.properties.state.enum, ["pending", "delivered", "failed"]);
      const example = post.requestBody.content["application/json"].example;
      for (const member of notice.required) assert.ok(member in example, `the example has ${member}`);
      for (const member of Object.keys(example)) assert.ok(member in notice.properties, `${member} is described`);
    },
  );

  await t.test("every operation has an operationId and examples for every request and response", async () => {
    const ids = operations(doc).map(([, , op]) => op.operationId);
    assert.deepEqual(ids.sort(), [
      "readCallbackSecret",
      "readJob",
      "readJobCsv",
      "readMetrics",
      "rotateCallbackSecret",
      "submitBulkAddress",
      "submitBulkEmail",
      "verifyAddress",
      "verifyEmail",
      "verifySignup",
    ]);
    for (const [path, method, op] of operations(doc)) {
      const bodies = Object.entries({ ...op.requestBody?.content });
      for (const [status, response] of Object.entries(op.responses)) {
        bodies.push(
          ...Object.entries({ ...response.content }).map(
            ([type, media]) => [`${status} ${type}`, media] as [string, MediaType],
          ),
        );
      }
      for (const [where, media] of bodies) {
        const count = media.example !== undefined ? 1 : Object.keys(media.examples ?? {}).length;
        assert.ok(count > 0, `${method} ${path} ${where} has no example`);
      }
    }
    // The spec's test-mode reserved inputs are all there.
    const emailRequests = Object.values(doc.paths["/v1/email"].post.requestBody.content["application/json"].examples);
    assert.deepEqual(
      emailRequests.map((e: any) => e.value.email),
      RESERVED_EMAILS,
    );
    const addressRequests = Object.values(
      doc.paths["/v1/address"].post.requestBody.content["application/json"].examples,
    );
    for (const line of RESERVED_ADDRESS_LINES) {
      assert.ok(
        addressRequests.some((e: any) => e.value.line === line),
        `${line} has an example`,
      );
    }
    assert.deepEqual(
      doc.paths["/v1/email/bulk"].post.requestBody.content["application/json"].examples.reserved.value.emails,
      RESERVED_EMAILS,
    );
  });

  await t.test("the problem schema and examples describe errors on 400 and limit and received on 413", async () => {
    const problem = doc.components.schemas.Problem;
    assert.deepEqual(problem.required, ["type", "title", "status", "detail"]);
    assert.equal(problem.properties.errors.type, "array");
    assert.equal(problem.properties.errors.items.$ref, "#/components/schemas/ValidationError");
    assert.deepEqual(doc.components.schemas.ValidationError.required, ["member", "message"]);
    assert.equal(problem.properties.limit.type, "integer");
    assert.equal(problem.properties.received.type, "integer");
    const tooLarge = doc.paths["/v1/email/bulk"].post.responses["413"].content["application/problem+json"].examples;
    assert.deepEqual(
      [tooLarge["batch-too-large"].value.limit, tooLarge["batch-too-large"].value.received],
      [5000, 6000],
    );
    const invalid = doc.paths["/v1/email"].post.responses["400"].content["application/problem+json"].examples;
    assert.equal(invalid["invalid-request"].value.type, `${server.url}/errors/invalid-request`);
    assert.ok(Array.isArray(invalid["invalid-request"].value.errors));
  });

  await t.test(
    "X-Quota-*, X-RateLimit-*, Prefer and Preference-Applied are described where they are sent",
    async () => {
      const quota = ["X-Quota-Limit", "X-Quota-Remaining", "X-Quota-Reset"];
      const carrying: Array<[string, string[]]> = [
        ["/v1/email", ["200", "400", "402", "415", "500", "503"]],
        ["/v1/address", ["200", "400", "402", "415", "500", "503"]],
        ["/v1/signup", ["200", "400", "402", "415", "500", "503"]],
        ["/v1/email/bulk", ["202", "400", "402", "413", "415", "500", "503"]],
      ];
      for (const [path, statuses] of carrying) {
        const responses = doc.paths[path].post.responses;
        for (const status of statuses) {
          for (const name of quota) assert.ok(responses[status].headers[name], `${path} ${status} ${name}`);
        }
        // Refused before admission, or by the rate limiter: no quota state is known or sent.
        for (const status of ["401", "403", "429"]) {
          for (const name of quota)
            assert.equal(responses[status].headers[name], undefined, `${path} ${status} ${name}`);
        }
        assert.ok(responses["429"].headers["Retry-After"]);
        assert.ok(responses["503"].headers["Retry-After"]);
      }
      for (const path of ["/v1/email", "/v1/signup"]) {
        const post = doc.paths[path].post;
        assert.deepEqual(
          post.parameters.map((p: any) => [p.name ?? p.$ref, p.in, p.example]),
          [
            ["Prefer", "header", "wait=5"],
            ["#/components/parameters/RequestId", undefined, undefined],
          ],
        );
        assert.match(post.parameters[0].description, /wait=N/);
        assert.ok(post.responses["200"].headers["Preference-Applied"]);
      }
      assert.deepEqual(doc.paths["/v1/address"].post.parameters, [{ $ref: "#/components/parameters/RequestId" }]);
      assert.equal(doc.paths["/v1/address"].post.responses["200"].headers["Preference-Applied"], undefined);
      // Job reads hold for `Prefer: wait=N` (an extension): described on both paths that read a job.
      for (const path of ["/v1/jobs/{id}", "/v1/jobs/{id}/results.csv"]) {
        const get = doc.paths[path].get;
        const prefer = get.parameters.find((p: any) => p.name === "Prefer");
        assert.equal(prefer?.in, "header", `${path} takes Prefer`);
        assert.match(prefer.description, /wait=N/);
        assert.equal(prefer["x-vrai-extension"], "long-poll");
        assert.match(get.responses["200"].headers["Preference-Applied"].description, /held/);
      }
    },
  );

  await t.test("X-Request-Id is described on every operation and on every answer", async () => {
    const { parameters, headers } = doc.components;
    assert.equal(parameters.RequestId.name, "X-Request-Id");
    assert.equal(parameters.RequestId.in, "header");
    assert.match(parameters.RequestId.description, /1 to 128 characters/);
    assert.ok(new RegExp(parameters.RequestId.schema.pattern).test(parameters.RequestId.example));
    assert.ok(headers.RequestId.description);
    for (const [path, method, op] of operations(doc)) {
      assert.ok(
        op.parameters?.some((p: any) => p.$ref === "#/components/parameters/RequestId"),
        `${method} ${path} takes X-Request-Id`,
      );
      for (const [status, response] of Object.entries(op.responses)) {
        assert.deepEqual(
          response.headers?.["X-Request-Id"],
          { $ref: "#/components/headers/RequestId" },
          `${method} ${path} ${status} sends X-Request-Id`,
        );
      }
    }
  });

  await t.test("the examples are what a test key is answered", async () => {
    for (const path of ["/v1/email", "/v1/address", "/v1/signup"]) {
      const { requestBody, responses } = doc.paths[path].post;
      const requests = requestBody.content["application/json"].examples;
      const answers = responses["200"].content["application/json"].examples;
      assert.deepEqual(Object.keys(requests), Object.keys(answers), path);
      for (const [name, example] of Object.entries(requests) as Array<[string, { value: unknown }]>) {
        const response = await server.post(path, key, example.value);
        assert.equal(response.status, 200, `${path} ${name}`);
        assert.deepEqual(
          withoutDuration(await response.json()),
          withoutDuration(answers[name].value),
          `${path} ${name}`,
        );
      }
    }
    // The invalid-request example is the answer to a misspelt member, word for word.
    const response = await server.post("/v1/email", key, MISSPELT_MEMBER_BODY);
    const example = doc.paths["/v1/email"].post.responses["400"].content["application/problem+json"].examples;
    assert.deepEqual(await response.json(), example["invalid-request"].value);
    const tooLong = await server.post("/v1/email", key, { email: `${"a".repeat(321)}@vrai.test` });
    assert.deepEqual(await tooLong.json(), example["invalid-request-too-long"].value);
    const notReserved = await server.post("/v1/email", key, { email: "jane@example.com" });
    assert.deepEqual(await notReserved.json(), example["request-failed"].value);
  });

  await t.test("types generated by openapi-typescript type-check a client that then calls the server", async () => {
    const dir = tempDir("vrai-openapi-");
    server.onClose(() => dir.remove());
    writeFileSync(join(dir.path, "api.ts"), astToString(await openapiTS(structuredClone(doc))));
    writeFileSync(join(dir.path, "client.ts"), CLIENT);
    writeFileSync(join(dir.path, "tsconfig.json"), JSON.stringify(TSCONFIG));
    const tsc = await promisify(execFile)(TSC, ["-p", join(dir.path, "tsconfig.json")], { cwd: dir.path }).then(
      () => "",
      (error: { stdout?: string; message: string }) => error.stdout || error.message,
    );
    assert.equal(tsc, "", "the client type-checks against the generated types");

    const client = await import(pathToFileURL(join(dir.path, "client.ts")).href);
    const expected: Record<string, string> = {
      deliverable: "deliverable",
      undeliverable: "undeliverable",
      catchall: "unknown",
      disposable: "risky",
      greylisted: "unknown",
    };
    for (const email of RESERVED_EMAILS) {
      const answer = await client.verifyEmail(server.url, key, { email });
      assert.equal(answer.ok, true, email);
      assert.ok(client.VERDICTS.includes(answer.body.verdict), `${email}: ${answer.body.verdict} is a typed verdict`);
      assert.equal(answer.body.verdict, expected[email.slice(0, email.indexOf("@"))], email);
    }
    const refused = await client.verifyEmail(server.url, key, MISSPELT_MEMBER_BODY);
    assert.deepEqual([refused.ok, refused.status], [false, 400]);
    assert.deepEqual(
      refused.body.errors.map((e: { member: string }) => e.member),
      ["email", "mail"],
    );
  });
});
