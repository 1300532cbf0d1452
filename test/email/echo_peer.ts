// An SMTP peer that says who is talking to it, as many real servers do in their EHLO reply ("250-mx.example Hello
// [203.0.113.5]"), and records every client address: for source-address and reverse-DNS tests.
import { createServer, type Socket } from "node:net";

export interface EchoSmtpPeer {
  host: string;
  port: number;
  /** The address of every client connection, in order. */
  readonly clients: string[];
  stop(): Promise<void>;
}

export interface EchoSmtpPeerOptions {
  host: string;
  port?: number;
  /** Local parts that exist ("*": all); others get 550 5.1.1. */
  mailboxes?: string[];
  /** Echo the client's address in the EHLO reply (default true). */
  echo?: boolean;
}

export async function startEchoSmtpPeer(options: EchoSmtpPeerOptions): Promise<EchoSmtpPeer> {
  const { host, port = 25, mailboxes = [], echo = true } = options;
  const clients: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    const client = (socket.remoteAddress ?? "").replace(/^::ffff:/, "");
    clients.push(client);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    socket.setEncoding("utf8");
    socket.write(`220 ${host} ESMTP echo\r\n`);
    let buffer = "";
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline).replace(/\r$/, "");
        buffer = buffer.slice(newline + 1);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === "EHLO" || verb === "HELO") {
          socket.write(`250-${host} Hello ${echo ? `[${client}]` : "there"}\r\n250 SMTPUTF8\r\n`);
        } else if (verb === "MAIL" || verb === "RSET" || verb === "NOOP") {
          socket.write("250 2.0.0 OK\r\n");
        } else if (verb === "RCPT") {
          const local = (/<([^@>]*)@/.exec(line)?.[1] ?? "").toLowerCase();
          const ok = mailboxes.includes("*") || mailboxes.includes(local);
          socket.write(ok ? "250 2.1.5 OK\r\n" : "550 5.1.1 User unknown\r\n");
        } else if (verb === "QUIT") {
          socket.end("221 2.0.0 Bye\r\n");
        } else {
          socket.write("502 5.5.2 Command not recognized\r\n");
        }
      }
    });
  });
  await new Promise<void>((resolve, reject) => server.listen(port, host, resolve).once("error", reject));
  return {
    host,
    port,
    clients,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
