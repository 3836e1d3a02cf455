// The npm ipx package over a directory, for the side-by-side image benchmark.
// Usage: node serve.mjs DIR PORT  → GET http://127.0.0.1:PORT/{modifiers}/{file}
import { createServer } from "node:http";
import { createIPX, createIPXNodeServer, ipxFSStorage } from "ipx";

const [dir, port] = process.argv.slice(2);
const ipx = createIPX({ storage: ipxFSStorage({ dir }) });
createServer(createIPXNodeServer(ipx)).listen(Number(port), "127.0.0.1", () => {
  console.log(`ipx on 127.0.0.1:${port} serving ${dir}`);
});
