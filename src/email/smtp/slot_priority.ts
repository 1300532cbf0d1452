/** Who asks for an MX connection slot: a single call or a signup (someone waits for the answer), or a bulk job's recipient. */
export type SlotPriority = "interactive" | "bulk";
