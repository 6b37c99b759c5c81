"""A real receiving AS2 partner for the interop tests: pyas2lib behind an HTTP server.

The hub (or `edihub send`) POSTs AS2 messages to it; pyas2lib's `Message.parse` decrypts,
verifies and decompresses each one with the partner's key and the hub's certificate, and
the MDN pyas2lib builds is the answer: in the response (sync) or POSTed to the
Receipt-Delivery-Option URL (async).

The Rust test (tests/interop/receiving.rs) starts this script and reads its stdout, one
JSON object a line:

  {"event": "listening", "port": N}         first, once the socket is bound
  {"event": "received", ...}                 a message parsed (payload, MIC, MDN sent)
  {"event": "unavailable", "message_id": ..} a request answered 503 (--unavailable)
  {"event": "async_mdn", "message_id": .., "answered": 200 | null, "error": ..}
                                             one POST of an async MDN
  {"event": "async_done", "message_id": ..}  all POSTs of that async MDN made (maybe none)
  {"event": "error", "message_id": .., "detail": ..}  pyas2lib failed outright (500)

Arguments: --fixtures DIR (partner-a.key/.crt: our identity; partner-b.key/.crt: the wrong
key; hub.crt: the hub's), --as2-name (ours), --hub (the hub's AS2 name), and what to get
wrong: --mdn-fault, --async-mdn, --unavailable. The script exits when stdin closes, so a
dying test leaves no server behind.
"""

import argparse
import base64
import hashlib
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from asn1crypto import cms
from pyas2lib import Mdn, Message, Organization, Partner
from email import message_from_bytes as parse_mime

MDN_FAULTS = ("none", "error", "wrong-mic", "wrong-key", "unsigned")
ASYNC_MODES = ("once", "never", "twice", "first")


def read(fixtures: Path, name: str) -> bytes:
    return (fixtures / name).read_bytes()


def emit(event: dict, lock=threading.Lock()) -> None:
    with lock:
        sys.stdout.write(json.dumps(event) + "\n")
        sys.stdout.flush()


def unfolded(headers: dict) -> list:
    # HTTP header values cannot carry line breaks: unfold what the email package folded.
    return [[name, " ".join(str(value).split())] for name, value in headers.items()]


class Peer:
    """What the partner knows and how it misbehaves; shared by the request threads."""

    def __init__(self, args):
        fixtures = Path(args.fixtures)
        own = read(fixtures, "partner-a.key") + read(fixtures, "partner-a.crt")
        wrong = read(fixtures, "partner-b.key") + read(fixtures, "partner-b.crt")
        self.org = Organization(as2_name=args.as2_name, sign_key=own, decrypt_key=own)
        # MDNs signed by a stranger, or not at all, for the faults that ask for it.
        self.wrong_signer = Organization(as2_name=args.as2_name, sign_key=wrong)
        self.no_signer = Organization(as2_name=args.as2_name)
        # Neither signature nor encryption required: the tests choose what the hub sends.
        self.hub = Partner(as2_name=args.hub, verify_cert=read(fixtures, "hub.crt"))
        self.fault = args.mdn_fault
        self.async_posts = {"once": 1, "never": 0, "twice": 2, "first": 1}[args.async_mdn]
        # "first": the MDN is POSTed before the message's own POST is answered, as a
        # fast partner may do.
        self.async_first = args.async_mdn == "first"
        self.answer_delay = args.answer_delay_ms / 1000
        self.unavailable_left = args.unavailable
        self.lock = threading.Lock()

    def take_unavailable(self) -> bool:
        with self.lock:
            if self.unavailable_left > 0:
                self.unavailable_left -= 1
                return True
            return False

    def receive(self, raw: bytes):
        """Parses one message; returns the record to emit and the MDN to answer with."""
        message = Message()
        status, (exception, _trace), mdn = message.parse(
            raw,
            find_org_cb=lambda _id: self.org,
            find_partner_cb=lambda _id: self.hub,
        )
        if mdn is not None and self.fault != "none":
            mdn = self.faulty_mdn(message, mdn, status)
        content = message.content
        if isinstance(content, str):
            content = content.encode("utf-8")
        record = {
            "event": "received",
            "message_id": message.message_id,
            "as2_from": message.headers.get("as2-from"),
            "as2_to": message.headers.get("as2-to"),
            "status": status,
            "detail": str(exception) if exception else None,
            "payload_b64": base64.b64encode(content or b"").decode("ascii"),
            "signed": bool(message.signed),
            "encrypted": bool(message.encrypted),
            "compressed": bool(message.compressed),
            "cipher": cipher_of(raw) if message.encrypted else None,
            "digest_alg": message.digest_alg,
            "mic": message.mic.decode("ascii") if message.mic else None,
            "mdn": describe(mdn),
        }
        return record, mdn

    def faulty_mdn(self, message: Message, mdn: Mdn, status: str) -> Mdn:
        """The MDN pyas2lib builds again, with the fault this peer was started with."""
        detailed = None
        signer = self.org
        if self.fault == "error":
            status, detailed = "processed/Error", "unexpected-processing-error"
        elif self.fault == "wrong-mic":
            message.mic = base64.b64encode(hashlib.sha256(b"not the content").digest())
            message.digest_alg = message.digest_alg or "sha256"
        elif self.fault == "wrong-key":
            signer = self.wrong_signer
        elif self.fault == "unsigned":
            signer = self.no_signer
        receiver, message.receiver = message.receiver, signer
        try:
            rebuilt = Mdn(mdn_mode=mdn.mdn_mode, mdn_url=mdn.mdn_url, digest_alg=mdn.digest_alg)
            rebuilt.build(message=message, status=status, detailed_status=detailed)
        finally:
            message.receiver = receiver
        return rebuilt


def cipher_of(raw: bytes) -> str | None:
    """The content-encryption algorithm, by asn1crypto's name (`aes128_cbc`): pyas2lib
    itself names only 3DES."""
    envelope = parse_mime(raw).get_payload(decode=True)
    content = cms.ContentInfo.load(envelope)["content"]
    return content["encrypted_content_info"]["content_encryption_algorithm"]["algorithm"].native


def describe(mdn) -> dict | None:
    if mdn is None:
        return None
    signed = mdn.payload.get_content_type() == "multipart/signed"
    return {
        "mode": mdn.mdn_mode,
        "url": mdn.mdn_url,
        "signed": signed,
        "micalg": mdn.payload.get_param("micalg") if signed else None,
    }


def mdn_content(mdn: Mdn) -> bytes:
    content = mdn.content
    return content.encode("utf-8") if isinstance(content, str) else content


def post_async(peer: Peer, message_id: str, mdn: Mdn) -> None:
    """POSTs the async MDN to the URL the message gave, as often as told."""
    for _ in range(peer.async_posts):
        request = urllib.request.Request(mdn.mdn_url, data=mdn_content(mdn), method="POST")
        for name, value in unfolded(mdn.headers):
            request.add_header(name, value)
        event = {"event": "async_mdn", "message_id": message_id, "answered": None, "error": None}
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                event["answered"] = response.status
        except urllib.error.HTTPError as e:
            event["answered"] = e.code
        except (urllib.error.URLError, OSError) as e:
            event["error"] = f"{type(e).__name__}: {e}"
        emit(event)
    # The Rust side waits for this rather than for the absence of a POST.
    emit({"event": "async_done", "message_id": message_id})


class Handler(BaseHTTPRequestHandler):
    peer: Peer = None  # set in main
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002 - the events on stdout say it all
        pass

    def do_POST(self):
        length = self.headers.get("Content-Length")
        if length is None:
            self.answer(411, [], b"Content-Length required\r\n")
            return
        body = self.rfile.read(int(length))
        message_id = (self.headers.get("Message-ID") or "").strip().strip("<>")
        if self.peer.take_unavailable():
            emit({"event": "unavailable", "message_id": message_id})
            self.answer(503, [], b"try again later\r\n")
            return
        raw = b"".join(f"{k}: {v}\r\n".encode("utf-8") for k, v in self.headers.items())
        try:
            record, mdn = self.peer.receive(raw + b"\r\n" + body)
        except Exception as e:  # pyas2lib failing outright: reported, answered 500
            emit({"event": "error", "message_id": message_id, "detail": f"{type(e).__name__}: {e}"})
            self.answer(500, [], b"receiving peer failed\r\n")
            return
        emit(record)
        # Holds the answer back, so a test can act while the sender awaits it.
        time.sleep(self.peer.answer_delay)
        if mdn is not None and mdn.mdn_mode == "SYNC":
            self.answer(200, unfolded(mdn.headers), mdn_content(mdn))
            return
        if mdn is not None and self.peer.async_first:
            post_async(self.peer, record["message_id"], mdn)
            self.answer(200, [], b"")
            return
        self.answer(200, [], b"")
        if mdn is not None:
            threading.Thread(
                target=post_async, args=(self.peer, record["message_id"], mdn), daemon=True
            ).start()

    def answer(self, status: int, headers: list, body: bytes) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()


def exit_when_stdin_closes() -> None:
    for _ in sys.stdin:
        pass
    os._exit(0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fixtures", required=True)
    parser.add_argument("--as2-name", required=True)
    parser.add_argument("--hub", required=True)
    parser.add_argument("--mdn-fault", choices=MDN_FAULTS, default="none")
    parser.add_argument("--async-mdn", choices=ASYNC_MODES, default="once")
    parser.add_argument("--unavailable", type=int, default=0)
    parser.add_argument("--answer-delay-ms", type=int, default=0)
    args = parser.parse_args()
    Handler.peer = Peer(args)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    emit({"event": "listening", "port": server.server_address[1]})
    server.serve_forever()


if __name__ == "__main__":
    main()
