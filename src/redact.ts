// Values made safe for logs: an email keeps its domain only, a key its public prefix only.

/** "jane.doe@example.com" -> "*@example.com"; anything without "@" -> "*". */
export function redactEmail(email: string): string {
  const at = email.lastIndexOf("@");
  return at < 0 ? "*" : `*@${email.slice(at + 1).toLowerCase()}`;
}

/** The first 12 characters of a key, the part that is stored in clear anyway. */
export function redactKey(key: string): string {
  return key.slice(0, 12);
}
