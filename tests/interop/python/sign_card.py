"""Signs agent cards with the official Python SDK's card signer, for
a2a-conform's signature interop test (tests/integration/signatures.rs).

    sign_card.py CARD.json...   prints {"jwk": <public JWK>, "cards": [<signed card>...]}
    sign_card.py --canonical MANIFEST.json
                                prints {"<vector id>": "<canonical form>", ...} for the
                                corpus's cards (fixtures/signatures), as the SDK makes it

Each card is parsed into the SDK's `AgentCard` (as a client of the SDK reads
a card), signed with `a2a.utils.signing.create_agent_card_signer` (ES256, a
P-256 key made for this run) and written back as JSON the way the SDK serves
a card (`MessageToDict`). Nothing here reimplements the SDK: the signer and
the canonical form are the SDK's own.
"""

import json
import os
import sys

from cryptography.hazmat.primitives.asymmetric import ec
from google.protobuf.json_format import MessageToDict, ParseDict
from jwt.algorithms import ECAlgorithm

from a2a.types import AgentCard
from a2a.utils.signing import _canonicalize_agent_card, create_agent_card_signer

KID = "sdk-python"


def parse(path):
    with open(path, encoding="utf-8") as f:
        return ParseDict(json.load(f), AgentCard(), ignore_unknown_fields=True)


def sign(paths):
    key = ec.generate_private_key(ec.SECP256R1())
    signer = create_agent_card_signer(
        signing_key=key,
        # No `jku`: the test gives the key with --trusted-key.
        protected_header={"kid": KID, "alg": "ES256", "typ": "JOSE"},
    )
    jwk = json.loads(ECAlgorithm.to_jwk(key.public_key()))
    jwk.update({"kid": KID, "alg": "ES256", "use": "sig"})
    cards = [MessageToDict(signer(parse(path))) for path in paths]
    return {"jwk": jwk, "cards": cards}


def canonical(manifest_path):
    base = os.path.dirname(manifest_path)
    with open(manifest_path, encoding="utf-8") as f:
        manifest = json.load(f)
    return {
        v["id"]: _canonicalize_agent_card(parse(os.path.join(base, v["card"])))
        for v in manifest["vectors"]
    }


def main(argv):
    if len(argv) == 2 and argv[0] == "--canonical":
        out = canonical(argv[1])
    elif argv and not argv[0].startswith("-"):
        out = sign(argv)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    json.dump(out, sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
