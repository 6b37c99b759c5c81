"""A real AS2 partner for the interop tests: pyas2lib, driven over stdin/stdout.

The Rust test starts this script once per test and speaks JSON lines with it:

  {"op": "build", ...}  -> pyas2lib builds an AS2 message (it signs, encrypts and
                           compresses by itself); the answer carries the HTTP headers and
                           body to POST, the Message-ID and the MIC pyas2lib expects back.
  {"op": "parse", ...}  -> pyas2lib's Mdn.parse reads the MDN the hub answered with
                           (verifying its signature and comparing the MIC) and the answer
                           carries its status and detail.
  {"op": "receive", ...} -> pyas2lib plays the hub (with the hub's test keys) and parses
                           a message built by edihub's client side; the answer carries
                           what it found (status, payload, MIC) and the MDN it built.

Arguments: --fixtures DIR (hub.crt, partner-a.key/.crt, partner-b.key/.crt), --hub AS2-ID,
--partner AS2-ID. Nothing here talks to the network: the Rust test does the HTTP.
"""

import argparse
import base64
import json
import sys
from pathlib import Path

from pyas2lib import Message, Mdn, Organization, Partner


def read(fixtures: Path, name: str) -> bytes:
    return (fixtures / name).read_bytes()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fixtures", required=True)
    parser.add_argument("--hub", required=True)
    parser.add_argument("--partner", required=True)
    args = parser.parse_args()
    fixtures = Path(args.fixtures)

    # Who signs: the real partner (partner-a) or a stranger using the partner's AS2 name.
    signers = {
        name: Organization(
            as2_name=args.partner,
            sign_key=read(fixtures, f"{name}.key") + read(fixtures, f"{name}.crt"),
        )
        for name in ("partner-a", "partner-b")
    }
    sent: dict[str, Message] = {}
    hub_keys = read(fixtures, "hub.key") + read(fixtures, "hub.crt")
    hub_org = Organization(as2_name=args.hub, sign_key=hub_keys, decrypt_key=hub_keys)
    partner = Partner(as2_name=args.partner, verify_cert=read(fixtures, "partner-a.crt"))

    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            if request["op"] == "build":
                answer = build(request, signers, fixtures, args.hub, sent)
            elif request["op"] == "parse":
                answer = parse(request, sent)
            elif request["op"] == "receive":
                answer = receive(request, hub_org, partner)
            else:
                answer = {"error": f"unknown op {request['op']!r}"}
        except Exception as e:  # reported to the Rust test, which fails with it
            answer = {"error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


def build(request, signers, fixtures: Path, hub: str, sent) -> dict:
    sign = request.get("sign")  # None or a pyas2lib digest name (sha1, sha256, ...)
    encrypt = request.get("encrypt")  # None or a pyas2lib cipher name
    mdn = request.get("mdn")  # None, "unsigned", "signed" or "async-signed"
    encrypt_to = request.get("encrypt_to", "hub")
    receiver = Partner(
        as2_name=hub,
        verify_cert=read(fixtures, "hub.crt"),
        encrypt_cert=read(fixtures, f"{encrypt_to}.crt"),
        sign=sign is not None,
        digest_alg=sign or "sha256",
        encrypt=encrypt is not None,
        enc_alg=encrypt or "tripledes_192_cbc",
        compress=bool(request.get("compress")),
        mdn_mode=("ASYNC" if mdn == "async-signed" else "SYNC") if mdn else None,
        # A signed MDN is asked for with the signing digest, as partners usually do.
        mdn_digest_alg=(sign or "sha256") if mdn in ("signed", "async-signed") else None,
        # rsassa_pkcs1v15 (default) or rsassa_pss; rsaes_pkcs1v15 (default) or rsaes_oaep.
        sign_alg=request.get("sign_alg") or "rsassa_pkcs1v15",
        key_enc_alg=request.get("key_enc_alg") or "rsaes_pkcs1v15",
    )
    sender = signers[request.get("signer", "partner-a")]
    # pyas2lib takes the Receipt-Delivery-Option from the sending organisation.
    sender.mdn_url = request.get("mdn_url")
    message = Message(sender, receiver)
    message.build(
        base64.b64decode(request["payload_b64"]),
        subject="interop",
        content_type="application/EDIFACT",
    )
    sent[message.message_id] = message
    # HTTP header values cannot carry line breaks: unfold what the email package folded.
    headers = [
        [name, " ".join(str(value).split())] for name, value in message.headers.items()
    ]
    content = message.content
    if isinstance(content, str):
        content = content.encode("utf-8")
    return {
        "message_id": message.message_id,
        "headers": headers,
        "body_b64": base64.b64encode(content).decode("ascii"),
        "mic": message.mic.decode("ascii") if message.mic else None,
    }


def parse(request, sent) -> dict:
    raw = b"".join(
        f"{name}: {value}\r\n".encode("utf-8") for name, value in request["headers"]
    )
    raw += b"\r\n" + base64.b64decode(request["body_b64"])
    status, detail = Mdn().parse(raw, lambda message_id, _recipient: sent.get(message_id))
    return {"status": status, "detail": detail}


def receive(request, hub_org, partner) -> dict:
    raw = b"".join(
        f"{name}: {value}\r\n".encode("utf-8") for name, value in request["headers"]
    )
    raw += b"\r\n" + base64.b64decode(request["body_b64"])
    message = Message()
    status, (exception, _trace), mdn = message.parse(
        raw,
        find_org_cb=lambda _id: hub_org,
        find_partner_cb=lambda _id: partner,
    )
    content = message.content
    if isinstance(content, str):
        content = content.encode("utf-8")
    answer = {
        "status": status,
        "detail": str(exception) if exception else None,
        "payload_b64": base64.b64encode(content or b"").decode("ascii"),
        "mic": message.mic.decode("ascii") if message.mic else None,
        "signed": bool(message.signed),
        "encrypted": bool(message.encrypted),
        "compressed": bool(message.compressed),
        "mdn": None,
    }
    if mdn is not None:
        answer["mdn"] = {
            "headers": [[k, " ".join(str(v).split())] for k, v in mdn.headers.items()],
            "body_b64": base64.b64encode(mdn.content).decode("ascii"),
        }
    return answer


if __name__ == "__main__":
    main()
