// The baseline: a bare node:http handler answering a small JSON body, nothing else. Like `src/main.ts`, it listens on
// PORT (0 for any free port) and reports the port it got in a `{"msg":"started","port":N}` line.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const body = JSON.stringify({ email: "deliverable@vrai.test", verdict: "deliverable", reasons: [] });
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(Number(process.env.PORT ?? 0), process.env.HOST, () => {
  console.log(JSON.stringify({ msg: "started", port: (server.address() as AddressInfo).port }));
});
