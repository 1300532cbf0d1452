// Request and response schemas of the API, in valibot. The request schemas validate bodies at the edge; all of them
// generate GET /v1/openapi.json (openapi.ts), so the description cannot drift from what is enforced.
import * as v from "valibot";
import { ADDRESS_REASONS, ADDRESS_VERDICTS } from "../address/vocabulary.ts";
import { CHECK_NAMES, CHECK_STATUSES, EMAIL_REASONS, VERDICTS, type CheckName } from "../email/vocabulary.ts";
import { JOB_STATUSES } from "../jobs/job_store.ts";
import { CALLBACK_URL_MAX_LENGTH } from "../callbacks/callback_target.ts";
import { CALLBACK_STATES } from "../callbacks/callback_store.ts";

export const EMAIL_MAX_LENGTH = 320;

// NUL, and a UTF-16 surrogate half without its pair: PostgreSQL's text cannot hold the first, and UTF-8 cannot encode
// the second (it would be stored as U+FFFD). Refused at the edge, naming the member, before any database call.
const UNSTORABLE = /[\u0000\p{Cs}]/u;
/** A string PostgreSQL can store exactly as sent. */
export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}
const Storable = v.check(isStorableText, "must not hold a NUL character or an unpaired surrogate");
const Text = () => v.pipe(v.string(), Storable);

const EmailString = v.pipe(
  Text(),
  v.maxLength(EMAIL_MAX_LENGTH),
  v.description("An email address, at most 320 characters."),
);
const Field = (description: string) => v.optional(v.pipe(Text(), v.maxLength(300), v.description(description)));

export const AddressInputSchema = v.pipe(
  v.object({
    line: v.optional(
      v.pipe(
        Text(),
        v.maxLength(1000),
        v.description(
          'The whole address as one string, in any order people write it: "10 rue de Rivoli 75004 Paris", "75004 Paris, rue de Rivoli 10", "PARIS 10 RUE DE RIVOLI" (the city first is read as the city when it names a commune that has the street).',
        ),
      ),
    ),
    house_number: Field(
      'House number with an optional suffix (bis, ter, B…); "n° 12" is read as 12, "12 rue de Rivoli" with no street field gives the street too, and a suffix alone ("bis") is the suffix of the number in the street field.',
    ),
    street: Field(
      'Street type and name, the number before or after it ("rue de Rivoli 10"). A whole address sent here (with a postcode) and no line is read as the line; the postcode and city fields then stand over what it says.',
    ),
    postcode: Field(
      'Five-digit French postcode. A postcode field that holds the city too ("75004 Paris"), or the city alone (with the postcode in the city field, or the city field empty), is read as meant.',
    ),
    city: Field(
      'Commune or delivery name; "75004 Paris" here, with no postcode field or the same one, gives the postcode; "Paris, France" and "Paris (75)" are Paris.',
    ),
    country: Field("FR (the only country covered); any other country yields verdict unknown."),
  }),
  v.description(
    'A postal address as one line, as separate fields, or both (fields override the line). A field of punctuation only ("-") counts as empty.',
  ),
);

export const EmailRequestSchema = v.object({ email: EmailString });

export const SignupRequestSchema = v.object({
  email: v.optional(EmailString),
  address: v.optional(AddressInputSchema),
  country: Field("Country of the address when the address has none."),
});

/** Every bulk submission's optional completion callback (http/callback_url.ts judges it against the policy). */
export const CallbackUrlSchema = v.optional(
  v.pipe(
    Text(),
    v.maxLength(CALLBACK_URL_MAX_LENGTH),
    v.description(
      "An extension: gets one POST when the job ends (completed or failed), signed with the account's callback secret " +
        "(header Vrai-Signature). https, or http only to the hosts the operator allows; never a private or loopback " +
        "address. A CSV upload sends it as the callback_url query parameter.",
    ),
  ),
);

export const BulkRequestSchema = v.object({
  emails: v.pipe(
    v.array(EmailString),
    v.minLength(1),
    v.description("At most 5000 addresses (the plan may allow fewer); duplicates are removed, case-insensitively."),
  ),
  callback_url: CallbackUrlSchema,
});

/** An item of the list: what POST /v1/address takes, or a string as its line. */
export const AddressItemSchema = v.union([
  v.pipe(
    v.string(),
    v.maxLength(1000),
    Storable,
    v.transform((line): { line: string } => ({ line })),
  ),
  AddressInputSchema,
]);

export const AddressBulkRequestSchema = v.object({
  addresses: v.pipe(
    v.array(AddressItemSchema),
    v.minLength(1),
    v.description(
      "The addresses, each as POST /v1/address takes it (a line, or the fields) or a string as its line; at most the " +
        "plan's address_batch_max (100,000 by default). Every row is answered; equal rows (trimmed, any case) are " +
        "verified and charged once.",
    ),
  ),
  callback_url: CallbackUrlSchema,
});

export const JobIdSchema = v.pipe(v.string(), v.uuid(), v.description("Job id (uuid)."));

// Responses (documentation only: the service builds them, clients validate them).
const Verdict = v.picklist(VERDICTS);
const EmailReason = v.picklist(EMAIL_REASONS);
const CheckStatus = v.picklist(CHECK_STATUSES);
const AddressVerdict = v.picklist(ADDRESS_VERDICTS);
const AddressReason = v.picklist(ADDRESS_REASONS);
const NullableFlag = v.nullable(v.boolean());

export const EmailVerificationSchema = v.object({
  email: v.string(),
  verdict: Verdict,
  reasons: v.array(EmailReason),
  suggestion: v.optional(v.nullable(v.string())),
  flags: v.optional(v.object({ disposable: NullableFlag, role: NullableFlag, catch_all: NullableFlag })),
  checks: v.object(
    Object.fromEntries(CHECK_NAMES.map((name) => [name, CheckStatus])) as Record<CheckName, typeof CheckStatus>,
  ),
  duration_ms: v.pipe(v.number(), v.integer()),
});

export const NormalizedAddressSchema = v.object({
  house_number: v.nullable(v.string()),
  house_number_suffix: v.nullable(v.string()),
  street: v.string(),
  postcode: v.string(),
  city: v.string(),
  country: v.literal("FR"),
  line: v.string(),
  latitude: v.nullable(v.number()),
  longitude: v.nullable(v.number()),
  // Extensions (the spec's members are unchanged): for joins with other public data, and for mailers.
  insee_code: v.optional(
    v.pipe(
      v.nullable(v.string()),
      v.description("Extension: the commune's INSEE code (the arrondissement's in Paris, Lyon, Marseille)."),
    ),
  ),
  ban_id: v.optional(
    v.pipe(
      v.nullable(v.string()),
      v.description(
        "Extension: BAN's id of the matched address (`75101_cfq3tf_00150`), for joins with other public data; null " +
          "when no listed address matched (no number, or one the street does not have).",
      ),
    ),
  ),
  postal_line_4: v.optional(
    v.pipe(
      v.nullable(v.string()),
      v.description(
        "Extension: NF Z 10-011 line 4 as La Poste prints it: number, suffix and street, upper case without accents " +
          "or punctuation, at most 38 characters, shortened where longer by BAN's abbreviation rules " +
          "(@etalab/normadresse). Null without a street.",
      ),
    ),
  ),
  postal_line_6: v.optional(
    v.pipe(
      v.string(),
      v.description("Extension: NF Z 10-011 line 6: postcode and delivery name, as line 4 is written."),
    ),
  ),
  postcode_candidates: v.optional(
    v.pipe(
      v.array(v.string()),
      v.description(
        "Extension: the postcodes of a street named without a house number that tells which is the address's " +
          '("Avenue du Maine, Paris": ["75014", "75015"]); `postcode` is then empty, `line` leaves it out and the ' +
          "reasons include missing_postcode. Absent otherwise.",
      ),
    ),
  ),
});

export const AddressVerificationSchema = v.object({
  verdict: AddressVerdict,
  reasons: v.array(AddressReason),
  normalized: v.optional(v.nullable(NormalizedAddressSchema)),
  duration_ms: v.pipe(v.number(), v.integer()),
});

export const SignupVerificationSchema = v.object({
  verdict: Verdict,
  reasons: v.array(v.pipe(v.string(), v.description("<signal>.<reason>, e.g. email.role_address"))),
  signals: v.strictObject({
    email: v.optional(
      v.object({ verdict: Verdict, reasons: v.array(EmailReason), suggestion: v.nullable(v.string()) }),
    ),
    address: v.optional(
      v.object({ verdict: AddressVerdict, reasons: v.array(AddressReason), normalized: v.nullable(v.string()) }),
    ),
  }),
  duration_ms: v.pipe(v.number(), v.integer()),
});

const JobStatus = v.picklist(JOB_STATUSES);

export const JobAcceptedSchema = v.object({
  job_id: v.pipe(v.string(), v.uuid()),
  status: JobStatus,
  total: v.pipe(v.number(), v.integer()),
  poll: v.pipe(v.string(), v.url()),
  expires_at: v.pipe(v.string(), v.isoTimestamp()),
  retention_note: v.optional(v.string()),
});

const Integer = () => v.pipe(v.number(), v.integer());
const Timestamp = () => v.pipe(v.string(), v.isoTimestamp());

export const JobCallbackSchema = v.pipe(
  v.object({
    url: v.pipe(v.string(), v.description("The callback_url the job was submitted with.")),
    state: v.pipe(
      v.picklist(CALLBACK_STATES),
      v.description(
        "pending: the job runs, or the next attempt is due at next_attempt_at; delivered: the receiver answered 2xx; " +
          "failed: given up (a day of attempts, or a target refused at delivery).",
      ),
    ),
    attempts: v.pipe(Integer(), v.description("POSTs started so far.")),
    last_status: v.pipe(
      v.nullable(Integer()),
      v.description("The HTTP status of the last attempt; null if none came."),
    ),
    last_error: v.pipe(v.nullable(v.string()), v.description("Why the last attempt failed; null when it did not.")),
    next_attempt_at: v.pipe(
      v.nullable(Timestamp()),
      v.description("When the next attempt is due, once the job has ended and while pending; null otherwise."),
    ),
    delivered_at: v.nullable(Timestamp()),
  }),
  v.description(
    "An extension, present when the job was submitted with a callback_url: where the delivery of its completion " +
      "callback stands.",
  ),
);

export const CallbackSecretSchema = v.object({
  secret: v.pipe(
    v.string(),
    v.description(
      "HMAC-SHA256 key of the account's callbacks: a receiver computes HMAC(secret, t + '.' + body) and compares " +
        "it with a v1 value of the Vrai-Signature header.",
    ),
  ),
  created_at: Timestamp(),
  previous_expires_at: v.pipe(
    v.nullable(Timestamp()),
    v.description("After a rotation: until when the secret it replaced still signs, beside this one; else null."),
  ),
});

export const JobSchema = v.object({
  job_id: v.pipe(v.string(), v.uuid()),
  status: JobStatus,
  total: v.pipe(v.number(), v.integer()),
  processed: v.pipe(v.number(), v.integer()),
  created_at: v.optional(v.pipe(v.string(), v.isoTimestamp())),
  expires_at: v.optional(v.pipe(v.string(), v.isoTimestamp())),
  failure_reason: v.optional(v.string()),
  callback: v.optional(JobCallbackSchema),
  results: v.array(EmailVerificationSchema),
});

export const AddressJobResultSchema = v.object({
  ...AddressVerificationSchema.entries,
  row: v.pipe(v.number(), v.integer(), v.description("The row this answers: 1-based, in input order.")),
});

export const AddressJobSchema = v.pipe(
  v.object({
    job_id: v.pipe(v.string(), v.uuid()),
    kind: v.literal("address"),
    status: JobStatus,
    total: v.pipe(v.number(), v.integer(), v.description("Rows submitted (equal rows included: each is answered).")),
    processed: v.pipe(v.number(), v.integer()),
    created_at: v.pipe(v.string(), v.isoTimestamp()),
    expires_at: v.pipe(v.string(), v.isoTimestamp()),
    failure_reason: v.optional(v.string()),
    callback: v.optional(JobCallbackSchema),
    summary: v.pipe(
      v.object(
        Object.fromEntries(ADDRESS_VERDICTS.map((verdict) => [verdict, v.pipe(v.number(), v.integer())])) as Record<
          (typeof ADDRESS_VERDICTS)[number],
          v.SchemaWithPipe<readonly [v.NumberSchema<undefined>, v.IntegerAction<number, undefined>]>
        >,
      ),
      v.description("Rows answered so far, by verdict."),
    ),
    results: v.pipe(
      v.array(AddressJobResultSchema),
      v.description(
        "Answered rows in input order, each the POST /v1/address answer with its `row`: the first 1000 unless " +
          "`offset`/`limit` ask for another page (10,000 at most).",
      ),
    ),
  }),
  v.description("A bulk address job (extension): GET /v1/jobs/{id} of a job submitted to POST /v1/address/bulk."),
);

const Count = (description: string) => v.optional(v.pipe(v.number(), v.integer(), v.description(description)));

export const ValidationErrorSchema = v.object({
  member: v.pipe(
    v.string(),
    v.description("The failing member as a path: `email`, `emails[3]`, `address.line`; `(body)` for the body itself."),
  ),
  message: v.pipe(
    v.string(),
    v.description('What is wrong, naming the member: `email is required`, `unexpected member "mail"`.'),
  ),
});

export const ProblemSchema = v.pipe(
  v.looseObject({
    type: v.pipe(v.string(), v.url(), v.description("{errors_base}/<slug>: GET it for a page explaining the slug.")),
    title: v.string(),
    status: v.pipe(v.number(), v.integer()),
    detail: v.pipe(v.string(), v.description("What went wrong with this call, in plain words.")),
    errors: v.optional(
      v.pipe(
        v.array(ValidationErrorSchema),
        v.description(
          "400 invalid-request: every failing member (at most 50; `detail` repeats the first five). With the " +
            "failures, members the endpoint does not know are named as unexpected: a valid request ignores them. " +
            "400 request-failed for inputs that do not fit the key (a test key given an input that is not a " +
            "reserved test input, a live key given one that is): every such input (at most 50; `detail` names the " +
            "first), as its member (`email`, `emails[3]`, `address`, `(body)`) or `line N` of a CSV body.",
        ),
      ),
    ),
    line: Count(
      "400 on a CSV bulk body: the line that cannot be read (invalid-request), or the first row that does not fit " +
        "the key (request-failed).",
    ),
    limit: Count("413 batch-too-large: the most addresses one job may hold on this plan."),
    received: Count(
      "413 batch-too-large: the addresses (or rows) read when the list was refused: a body is read as it arrives " +
        "and refused at the first one past the limit, so this is the limit plus one whatever the body's length.",
    ),
    accepted: v.optional(
      v.pipe(
        v.array(v.string()),
        v.description("415 unsupported-media-type: every media type the endpoint reads, JSON first."),
      ),
    ),
    limit_bytes: Count("413 batch-too-large: the body size limit in bytes, when the body itself is too large."),
  }),
  v.description(
    "RFC 9457 problem document: every failure. type, title, status and detail are always present; the other " +
      "members are extensions present on the statuses they name.",
  ),
);
