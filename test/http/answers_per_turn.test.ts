// Answers ready in the turn of the event loop their requests arrived in leave together at the end of that turn
// (src/async/end_of_turn.ts); an answer that comes later leaves at once. Seen from node's own diagnostics channel for
// finished responses, with requests sent on three connections at once so that one turn reads all three.
import assert from "node:assert/strict";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { connect, type Socket } from "node:net";
import { test } from "node:test";
import type { App } from "../../src/http/app.ts";
import { textResponse } from "../../src/http/light.ts";
import { serve } from "../../src/http/serve.ts";
import { silentLogger } from "../../src/log.ts";

const FINISH = "http.server.response.finish";

/** Serves `fetch` while `run` talks to it; every answer node finishes writing meanwhile is pushed onto `events`. */
async function withServer(
  events: string[],
  fetch: (request: Request) => Promise<Response>,
  run: (port: number) => Promise<void>,
): Promise<void> {
  const app: App = { fetch, refuse: () => textResponse("", 400, {}) };
  const server = await serve(app, { port: 0, host: "127.0.0.1", log: silentLogger });
  const onFinish = () => events.push("written");
  subscribe(FINISH, onFinish);
  try {
    await run(server.port);
  } finally {
    unsubscribe(FINISH, onFinish);
    await server.close(1000);
  }
}

function connected(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Sends one GET on each socket in the same synchronous block, and resolves with each socket's answer. */
function sendAll(sockets: Socket[], paths: string[]): Promise<string[]> {
  const answers = sockets.map(
    (socket) =>
      new Promise<string>((resolve) => {
        let text = "";
        socket.on("data", (chunk) => {
          text += chunk;
          if (text.endsWith("\r\n\r\nok")) {
            socket.removeAllListeners("data");
            resolve(text);
          }
        });
      }),
  );
  for (const [i, socket] of sockets.entries()) socket.write(`GET ${paths[i]} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  return Promise.all(answers);
}

test("answers made in the turn their requests arrived in leave together, after the last of them is made", async () => {
  const events: string[] = [];
  await withServer(
    events,
    async (request) => {
      events.push(`answered ${new URL(request.url).pathname}`);
      return textResponse("ok", 200, {});
    },
    async (port) => {
      const sockets = await Promise.all([connected(port), connected(port), connected(port)]);
      // A first round, so that the server has taken all three connections and reads them when the second is sent.
      await sendAll(sockets, ["/warm-up", "/warm-up", "/warm-up"]);
      events.length = 0;
      const answers = await sendAll(sockets, ["/a", "/b", "/c"]);
      for (const answer of answers) assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
      for (const socket of sockets) socket.destroy();
    },
  );
  assert.deepEqual(events, ["answered /a", "answered /b", "answered /c", "written", "written", "written"]);
});

test("an answer made in a later turn is written at once, not held to the end of that turn", async () => {
  const events: string[] = [];
  await withServer(
    events,
    async () => {
      // Answered from a timer, as an answer from the worker pool or a lookup comes in a later turn. The answer is
      // written before that turn's check phase, where an answer held to the end of the turn would be.
      await new Promise((resolve) => setTimeout(resolve, 20));
      setImmediate(() => events.push("check phase"));
      return textResponse("ok", 200, {});
    },
    async (port) => {
      const socket = await connected(port);
      const [answer] = await sendAll([socket], ["/late"]);
      assert.match(answer!, /^HTTP\/1\.1 200 OK\r\n/);
      // The answer may be read in the same turn it was written in: let that turn's check phase run.
      await new Promise(setImmediate);
      socket.destroy();
    },
  );
  assert.deepEqual(events, ["written", "check phase"]);
});
