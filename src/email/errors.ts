// Error vocabulary of the email engine. Callers branch on `code`, never on the message.

export type DnsErrorCode = "DNS_NXDOMAIN" | "DNS_NODATA" | "DNS_TIMEOUT" | "DNS_SERVFAIL" | "DNS_REFUSED";

/** A DNS lookup that did not produce records; `code` says why (the mx check maps it to a reason). */
export class DnsError extends Error {
  override name = "DnsError";
  readonly code: DnsErrorCode;
  constructor(code: DnsErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export type SmtpErrorCode =
  | "SMTP_CONNECT"
  | "SMTP_TIMEOUT"
  | "SMTP_DROPPED"
  | "SMTP_PROTOCOL"
  | "SMTP_ABORTED"
  | "SMTP_TARGET_REFUSED";

/** A dialogue that broke below the level of SMTP replies (socket, time, protocol, or our own refusal to dial). */
export class SmtpError extends Error {
  override name = "SmtpError";
  readonly code: SmtpErrorCode;
  constructor(code: SmtpErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
