// The baseline: a bare node:http handler answering a small JSON body, nothing else.
import { createServer } from "node:http";

const body = JSON.stringify({ email: "deliverable@vrai.test", verdict: "deliverable", reasons: [] });
createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
}).listen(Number(process.env.PORT), process.env.HOST);
