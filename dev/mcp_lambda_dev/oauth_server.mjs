// A real OAuth 2.0 / OpenID Connect authorization server for the tests: the npm package oauth2-mock-server
// (installed by `make services-install` under .cache/oauth), on 127.0.0.1 only.
//
// The library's endpoints: discovery (/.well-known/openid-configuration), /jwks, /authorize (signs the user in
// at once and redirects back with a code, so a client's browser step is one plain GET), /token
// (authorization_code with PKCE, password, client_credentials, refresh_token).
//
// What this file adds, for tests:
//   - access tokens carry as `aud` the RFC 8707 `resource` the client asked for, the scope it asked for at
//     /authorize, and as `sub` the /authorize `login_hint` (else the library's "johndoe"), the password grant's
//     `username` or the client_credentials grant's client id;
//   - POST /test/sign {"kid": "rs256" | "es256", "claims": {...}}: a JWT signed by one of the issuer's published
//     keys, with the library's default claims (iss, iat, exp, nbf) overridden by `claims` (null removes one);
//   - two published signing keys: "rs256" (RS256, signs every /token answer) and "es256" (ES256).
//
// Usage: node dev/mcp_lambda_dev/oauth_server.mjs --port N [--dir DIR]   (DIR holds node_modules/oauth2-mock-server)
import { createServer } from "node:http";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";

const { values } = parseArgs({
  options: { port: { type: "string" }, dir: { type: "string", default: ".cache/oauth" } },
});
const port = Number(values.port);
const library = join(resolve(values.dir), "node_modules", "oauth2-mock-server", "dist", "index.mjs");
const { OAuth2Issuer, OAuth2Service } = await import(pathToFileURL(library).href);

const url = `http://127.0.0.1:${port}`;
const issuer = new OAuth2Issuer();
issuer.url = url;
await issuer.keys.generate("RS256", { kid: "rs256" });
// A second issuer object only holds the ES256 key: the library signs /token answers with its keys in turn.
const ecIssuer = new OAuth2Issuer();
ecIssuer.url = url;
await ecIssuer.keys.generate("ES256", { kid: "es256" });

const service = new OAuth2Service(issuer);
const grants = new Map(); // authorization code -> what /authorize was asked for

service.on("beforeAuthorizeRedirect", (redirect, req) => {
  const code = redirect.url.searchParams.get("code");
  if (code) grants.set(code, { scope: req.query.scope, subject: req.query.login_hint });
});

service.on("beforeTokenSigning", (token, req) => {
  const body = req.body ?? {};
  const grant = body.code ? grants.get(body.code) : undefined;
  if (body.resource) token.payload.aud = body.resource;
  if (grant?.scope) token.payload.scope = grant.scope;
  if (grant?.subject) token.payload.sub = grant.subject;
  if (body.grant_type === "client_credentials" && body.client_id) token.payload.sub = body.client_id;
});

service.on("beforeResponse", (response, req) => {
  const code = req.body?.code;
  const grant = code ? grants.get(code) : undefined;
  if (grant?.scope && response.body) response.body.scope = grant.scope;
  if (code) grants.delete(code);
});

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
}

function send(res, status, value) {
  const payload = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(payload) });
  res.end(payload);
}

async function signed(request) {
  const signer = request.kid === "es256" ? ecIssuer : issuer;
  const overrides = request.claims ?? {};
  return signer.buildToken({
    kid: request.kid ?? "rs256",
    scopesOrTransform: (_header, payload) => {
      for (const [name, value] of Object.entries(overrides)) {
        if (value === null) delete payload[name];
        else payload[name] = value;
      }
    },
  });
}

const server = createServer(async (req, res) => {
  const path = new URL(req.url, url).pathname;
  try {
    if (req.method === "POST" && path === "/test/sign") {
      send(res, 200, { token: await signed(await readJson(req)) });
    } else if (req.method === "GET" && path === "/jwks") {
      send(res, 200, { keys: [...issuer.keys.toJSON(), ...ecIssuer.keys.toJSON()] });
    } else {
      service.requestHandler(req, res);
    }
  } catch (error) {
    send(res, 400, { error: "invalid_request", error_description: String(error) });
  }
});

server.listen(port, "127.0.0.1", () => console.log(`oauth server (issuer ${url}) listening`));
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => server.close(() => process.exit(0)));
