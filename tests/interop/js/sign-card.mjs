// Signs agent cards with the official JavaScript SDK's card signer, for
// a2a-conform's signature interop test (tests/integration/signatures.rs).
//
//   node sign-card.mjs CARD.json...    prints {"jwk": <public JWK>, "cards": [<signed card>...]}
//   node sign-card.mjs --canonical MANIFEST.json
//                                      prints {"<vector id>": "<canonical form>", ...} for
//                                      the corpus's cards (fixtures/signatures), as the SDK makes it
//
// Each card is signed with `generateAgentCardSignature` (ES256, a P-256 key
// made for this run); the signed card is what the SDK returns. Nothing here
// reimplements the SDK: the signer and the canonical form are its own.
import { canonicalizeAgentCard, generateAgentCardSignature } from '@a2a-js/sdk';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const KID = 'sdk-js';
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

async function sign(paths) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signer = generateAgentCardSignature(privateKey, { alg: 'ES256', kid: KID, typ: 'JOSE' });
  const cards = [];
  for (const path of paths) cards.push(await signer(readJson(path)));
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: KID, alg: 'ES256', use: 'sig' };
  return { jwk, cards };
}

function canonical(manifestPath) {
  const manifest = readJson(manifestPath);
  const out = {};
  for (const v of manifest.vectors) {
    out[v.id] = canonicalizeAgentCard(readJson(join(dirname(manifestPath), v.card)));
  }
  return out;
}

const args = process.argv.slice(2);
if (args.length === 2 && args[0] === '--canonical') {
  process.stdout.write(JSON.stringify(canonical(args[1])));
} else if (args.length > 0 && !args[0].startsWith('-')) {
  process.stdout.write(JSON.stringify(await sign(args)));
} else {
  process.stderr.write('usage: node sign-card.mjs CARD.json... | --canonical MANIFEST.json\n');
  process.exit(2);
}
