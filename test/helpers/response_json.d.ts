// Tests read answers whose shape they assert member by member: let Response.json() be `any` there, as it is at run time.
export {};
declare global {
  interface Response {
    json(): Promise<any>;
  }
}
