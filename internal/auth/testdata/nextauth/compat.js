// Runs the real next-auth v4 JWT codec for internal/auth's TestNextAuthCompatibility.
// Reads one JSON request on stdin and writes one JSON answer on stdout:
//   {"op":"encode","secret":S,"token":{...},"maxAge":N} -> {"token":"<JWE>"}
//   {"op":"decode","secret":S,"token":"<JWE>"}           -> {"payload":{...}} or {"error":"..."}
"use strict";
const { encode, decode } = require("next-auth/jwt");

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", async () => {
  const req = JSON.parse(input);
  try {
    if (req.op === "encode") {
      const token = await encode({ token: req.token, secret: req.secret, maxAge: req.maxAge });
      process.stdout.write(JSON.stringify({ token }));
    } else if (req.op === "decode") {
      const payload = await decode({ token: req.token, secret: req.secret });
      process.stdout.write(JSON.stringify({ payload }));
    } else {
      throw new Error("unknown op " + req.op);
    }
  } catch (err) {
    process.stdout.write(JSON.stringify({ error: String((err && err.code) || err) }));
  }
});
